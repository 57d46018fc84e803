#!/usr/bin/env bash
# Runs loopforge's Windows builds under Wine on Linux (headless; CI has no Windows machine):
#   1. the Windows test binaries of the packages in scripts/wine/packages.txt, each under wine64;
#   2. loopforge.exe: --version, then `serve` on loopback, checked from Linux with curl;
#   3. with --installer FILE: the NSIS installer run silently, then the installed loopforge.exe --version.
# Fails on any failing test or check. Builds go to a temporary directory and the Wine prefix to
# ${XDG_CACHE_HOME:-$HOME/.cache}/loopforge-ci/wine (made once per Wine version: wineboot is slow):
# the repository's tree is left as it was.
#
#   bash scripts/wine-test.sh [--no-app] [--installer FILE] [--probe] [--list] [PACKAGE...]
#     PACKAGE...   test these packages (paths like backend/store) instead of the list's; no skips
#     --no-app     leave out step 2 (for a tree whose main package does not compile for Windows yet)
#     --probe      also say which job-object features this Wine enforces (scripts/wine/jobprobe)
#     --list       only say which packages compile for Windows and which of them the list leaves out
# WINE_TEST_KEEP=1 keeps the temporary directory (test logs, binaries) and prints where it is.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
step() { echo "::: wine: $1 done at $((SECONDS - t0))s"; }
die() { echo "wine-test: $*" >&2; exit 1; }

app=1 installer="" list_only=0 probe=0 pkgs=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-app) app=0 ;;
    --installer) [ $# -ge 2 ] || die "--installer needs a file"; installer=$(realpath -e -- "$2") || die "no installer at $2"; shift ;;
    --installer=*) installer=$(realpath -e -- "${1#*=}") || die "no installer at ${1#*=}" ;;
    --list) list_only=1 ;;
    --probe) probe=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) pkgs+=("${1#./}") ;;
  esac
  shift
done

# pe_machine FILE: the machine field of a Windows executable's PE header (8664: x86-64, 14c: x86).
pe_machine() {
  local off
  off=$(od -An -tu4 -j 60 -N 4 "$1" | tr -d ' ')
  od -An -tx2 -j $((off + 4)) -N 2 "$1" | tr -d ' '
}
if [ -n "$installer" ]; then
  # Debian's wine64 runs x86-64 programs only: a 32-bit installer (NSIS's default stub, and so Wails'
  # -nsis) needs wine32:i386 too, which on a Debian with updated amd64 libraries means upgrading them
  # to match. Say so instead of watching Wine fail (it exits 0 even then).
  machine=$(pe_machine "$installer")
  [ "$machine" = 8664 ] || die "$installer is not an x86-64 program (PE machine $machine): this harness runs
  64-bit installers only (NSIS: 'Target amd64-unicode' in the .nsi; Debian's nsis has those stubs and plugins)"
fi

# --- What it needs: Debian's Wine and mingw-w64's C compiler (for the stand-in DLL below) --------
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
wine_bin() { command -v wine64 2>/dev/null || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; }; }
need=""
[ -n "$(wine_bin)" ]                          || need+=" wine64"
command -v x86_64-w64-mingw32-gcc >/dev/null  || need+=" gcc-mingw-w64-x86-64"
command -v curl >/dev/null                    || need+=" curl ca-certificates"
command -v flock >/dev/null                   || need+=" util-linux"
if [ -n "$need" ]; then
  echo "wine-test: installing Debian packages:$need"
  apt="$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600"
  $apt update -qq
  $apt install -y -qq --no-install-recommends $need >/dev/null
fi
command -v go >/dev/null || die "Go is required (see README)"
WINE=$(wine_bin)
WINESERVER=$(dirname "$WINE")/wineserver64; [ -x "$WINESERVER" ] || WINESERVER=$(dirname "$WINE")/wineserver
[ -x "$WINESERVER" ] || WINESERVER=$(command -v wineserver) || die "no wineserver next to $WINE"
wine_version=$("$WINE" --version)                         # e.g. "wine-8.0 (Debian 8.0~repack-4)"

# --- The package list --------------------------------------------------------------------------
declare -A skip=()
if [ ${#pkgs[@]} -eq 0 ]; then
  while read -r pkg pattern _; do
    pkgs+=("$pkg"); skip[$pkg]=$pattern
  done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/wine/packages.txt)
fi
if [ "$list_only" = 1 ]; then
  export GOOS=windows GOARCH=amd64 CGO_ENABLED=0
  for p in $(go list ./backend/...); do
    rel=${p#github.com/loopforge/loopforge/}
    if go vet "./$rel" >/dev/null 2>&1; then
      listed=no; for q in "${pkgs[@]}"; do [ "$q" = "$rel" ] && listed=yes; done
      echo "compiles for windows: $rel (listed: $listed)"
    else
      echo "does not compile:     $rel"
    fi
  done
  exit 0
fi

# --- The Wine environment: headless, quiet, and kept away from the real home ----------------------
# Console programs need no display (Wine's window driver is only loaded for windows); DISPLAY is
# dropped so that a developer's X session is never used either. HOME and the XDG directories point
# into the cache: wineboot links the prefix's Desktop, Documents, ... to $HOME, and winemenubuilder
# (disabled too) would write menu entries under it. mscoree/mshtml are disabled so wineboot does
# not look for Mono and Gecko (there is no network, and nothing here needs them).
cache=${XDG_CACHE_HOME:-$HOME/.cache}/loopforge-ci/wine
# The go command keeps its caches and settings where they were before HOME moves.
export GOPATH GOCACHE GOMODCACHE GOENV
GOPATH=$(go env GOPATH) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOENV=$(go env GOENV)
key="v2-$(printf '%s' "$wine_version" | tr -c 'A-Za-z0-9._-' '_')"
export WINEPREFIX=$cache/$key/prefix
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
export HOME=$cache/$key/home XDG_CONFIG_HOME=$cache/$key/home/.config XDG_DATA_HOME=$cache/$key/home/.local/share
unset DISPLAY WAYLAND_DISPLAY
mkdir -p "$HOME"
exec 9>"$cache/$key.lock"
flock -w 1800 9 || die "another wine-test.sh holds $cache/$key.lock"   # one run per prefix at a time

work=$(mktemp -d "${TMPDIR:-/tmp}/loopforge-wine.XXXXXX")
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  "$WINESERVER" -k 2>/dev/null || true          # this prefix's wineserver and whatever it still runs
  if [ "${WINE_TEST_KEEP:-0}" = 1 ]; then echo "wine-test: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
winpath() { local p=${1//\//\\}; echo "Z:$p"; }   # Wine's Z: drive is the Unix root

# --- The prefix, made once per Wine version ---------------------------------------------------
if [ ! -f "$WINEPREFIX/.loopforge-ready" ]; then
  echo "wine-test: making the Wine prefix $WINEPREFIX ($wine_version; the first time takes a while)"
  rm -rf "$WINEPREFIX"
  s=$SECONDS
  "$WINE" wineboot -i >"$work/wineboot.log" 2>&1 || { cat "$work/wineboot.log"; die "wineboot failed"; }
  # Wine 8.0's new prefix says it is Windows 7 (6.1.7601); loopforge, like Go itself, needs Windows 10,
  # and Wails' installer refuses anything older (silently, with exit code 64, under /S).
  "$WINE" winecfg -v win10 >>"$work/wineboot.log" 2>&1 || { cat "$work/wineboot.log"; die "winecfg -v win10 failed"; }
  "$WINESERVER" -w
  # The user folders wineboot linked to $HOME become plain folders: nothing a test writes under
  # Desktop or Documents may leave the prefix.
  find "$WINEPREFIX/drive_c/users" -mindepth 2 -maxdepth 2 -type l -exec sh -c 'rm "$1" && mkdir "$1"' _ {} \;
  echo "wine-test: prefix made in $((SECONDS - s))s"
  made_prefix=1
fi

# The stand-in bcryptprimitives.dll (scripts/wine/bcryptprimitives.c says why), rebuilt when its
# source changes and put in this prefix's system32 only.
dll_src=(scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def)
dll_sum=$(cat "${dll_src[@]}" | sha256sum | cut -c1-16)
dll=$cache/$key/bcryptprimitives-$dll_sum.dll
if [ ! -f "$dll" ]; then
  x86_64-w64-mingw32-gcc -shared -O2 -s -Wall -Wextra -Werror -o "$dll.tmp" "${dll_src[@]}" -ladvapi32
  mv "$dll.tmp" "$dll"
fi
cmp -s "$dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ||
  cp "$dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"

if [ ! -f "$WINEPREFIX/.loopforge-ready" ]; then
  # A Go program must start in the new prefix before it counts as ready.
  mkdir "$work/hello"
  printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from windows") }\n' >"$work/hello/main.go"
  (cd "$work/hello" && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 GOFLAGS= go build -o hello.exe main.go)
  out=$("$WINE" "$work/hello/hello.exe" 2>&1) || true
  [ "$out" = "hello from windows" ] || { echo "$out"; die "a Go hello world does not run in $WINEPREFIX"; }
  touch "$WINEPREFIX/.loopforge-ready"
fi
# The user's Temp folder is in the cached prefix: empty it, so a run sees nothing from the last.
wine_temp=$(echo "$WINEPREFIX"/drive_c/users/*/Temp)
[ -d "$wine_temp" ] && find "$wine_temp" -mindepth 1 -delete
step "prefix ready${made_prefix:+ (made)}"

# --- Go's os.RemoveAll under Wine 8.0 -----------------------------------------------------------
# Go deletes files inside os.RemoveAll and os.Root with NtSetInformationFile(FileDispositionInformationEx)
# and falls back to the older call when Windows answers that it does not know that class. Wine 8.0
# does not know it either, but answers STATUS_NOT_IMPLEMENTED (seen as "Invalid function."), which
# Go does not take for "unsupported": every t.TempDir clean-up then fails. Real Windows 10 1607 and
# later have the class, so this is Wine's gap: the test binaries (not loopforge.exe) are built with
# an overlay of that one Go file that takes STATUS_NOT_IMPLEMENTED (0xC0000002) for "unsupported" too.
at_go=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
overlay_flag=()
if [ -f "$at_go" ] && ! grep -q 'NTStatus(0xC0000002)' "$at_go"; then
  sed 's|^\t\tSTATUS_NOT_SUPPORTED: |\t\tSTATUS_NOT_SUPPORTED, NTStatus(0xC0000002):|' "$at_go" >"$work/at_windows.go"
  grep -q 'NTStatus(0xC0000002)' "$work/at_windows.go" ||
    die "Go's $at_go changed: update the os.RemoveAll work-around in scripts/wine-test.sh"
  printf '{"Replace":{"%s":"%s"}}\n' "$at_go" "$work/at_windows.go" >"$work/overlay.json"
  overlay_flag=(-overlay "$work/overlay.json")
fi
export GOOS=windows GOARCH=amd64 CGO_ENABLED=0

if [ "$probe" = 1 ]; then
  go build -o "$work/jobprobe.exe" ./scripts/wine/jobprobe
  rc=0; timeout -k 10 2m "$WINE" "$work/jobprobe.exe" || rc=$?
  [ "$rc" -le 1 ] || die "jobprobe.exe failed (exit $rc)"    # 1: some feature is not enforced
  "$WINESERVER" -k 2>/dev/null || true
  step probe
fi

# --- 1. The Windows test binaries under Wine ---------------------------------------------------
export LOOPFORGE_HOME; LOOPFORGE_HOME=$(winpath "$work/home")   # never the real home (nor a Linux path)
mkdir -p "$work/home" "$work/bin"
passed=0 failed=0 bad_pkgs=()
for pkg in "${pkgs[@]}"; do
  [ -d "$pkg" ] || die "no package directory $pkg"
  name=$(echo "$pkg" | tr / _)
  exe=$work/bin/$name.test.exe log=$work/$name.log
  s=$SECONDS
  if ! go test "${overlay_flag[@]}" -c -o "$exe" "./$pkg" >"$log" 2>&1; then
    cat "$log"; echo "wine: FAIL $pkg: does not compile for windows"
    failed=$((failed + 1)); bad_pkgs+=("$pkg"); continue
  fi
  [ -f "$exe" ] || { echo "wine: ---- $pkg: no test files"; continue; }
  args=(-test.v -test.timeout=5m)   # one word each: tests that re-execute their binary pass its flags on
  pattern=${skip[$pkg]:-}
  [ -n "$pattern" ] && args+=("-test.skip=$pattern")
  # Like go test, the binary runs in its package's directory (testdata). timeout guards against a
  # hung Wine; the test binary's own 5m timeout comes first.
  rc=0; (cd "$pkg" && timeout -k 10 6m "$WINE" "$exe" "${args[@]}") >"$log" 2>&1 || rc=$?
  np=$(grep -c '^--- PASS' "$log" || true); nf=$(grep -c '^--- FAIL' "$log" || true)
  ns=$(grep -c '^--- SKIP' "$log" || true)
  passed=$((passed + np)); failed=$((failed + nf))
  if [ "$rc" -ne 0 ]; then
    # The failures and what they printed, without the chatter of the passing tests.
    grep -v -E '^ *(=== (RUN|PAUSE|CONT|NAME)|--- PASS)' "$log" | tail -n 200
    [ "$nf" -gt 0 ] || failed=$((failed + 1))     # a crash or timeout outside any test counts too
    echo "wine: FAIL $pkg (exit $rc; $np passed, $nf failed, $ns skipped) in $((SECONDS - s))s"
    bad_pkgs+=("$pkg")
  else
    echo "wine: ok   $pkg ($np passed, $ns skipped${pattern:+; -test.skip $pattern}) in $((SECONDS - s))s"
  fi
  "$WINESERVER" -k 2>/dev/null || true           # nothing a package started outlives its run
done
step "tests"

# --- 2. loopforge.exe: --version, and serve checked from Linux ----------------------------------
check_version() { # EXE: prints the version line, fails unless it names loopforge
  local out
  out=$(timeout -k 5 60 "$WINE" "$1" --version 2>&1) || { echo "$out"; die "$1 --version failed"; }
  echo "$out" | grep -qi loopforge || { echo "$out"; die "$1 --version printed no loopforge version"; }
  echo "wine: $(basename "$1") --version: $(echo "$out" | head -1)"
}
if [ "$app" = 1 ]; then
  # Built as it ships (no overlay): this is the binary a Windows user runs.
  go build -o "$work/loopforge.exe" . || die "loopforge.exe does not compile for windows (--no-app leaves this step out)"
  check_version "$work/loopforge.exe"

  out=$work/serve.log; : >"$out"
  "$WINE" "$work/loopforge.exe" serve --addr 127.0.0.1:0 >"$out" 2>&1 & server_pid=$!
  url=""
  for _ in $(seq 600); do                          # up to a minute: Wine starts slower than Linux
    url=$(grep -o 'http://127.0.0.1:[0-9]*/?token=[0-9a-f]*' "$out" || true)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$out"; die "loopforge.exe serve printed no URL"; }
  base=${url%%/?token=*} jar=$work/cookies
  page=$(curl -fsSL -c "$jar" -b "$jar" "$url") || { cat "$out"; die "the page did not load"; }
  if [ -f frontend/dist/index.html ]; then want='<div id="root">'; else want='The loopforge UI is not built'; fi
  grep -qF "$want" <<<"$page" || { echo "$page" | head -20; die "the page lacks '$want'"; }
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/health")
  [ "$code" = 401 ] || die "/api/health without the token answered $code, want 401"
  health=$(curl -fsS -b "$jar" "$base/api/health") || die "/api/health with the cookie failed"
  grep -q '"version"' <<<"$health" || die "/api/health answered $health"
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  echo "wine: serve: page ('$want'), /api/health 401 without the token, 200 with the cookie"
  step "loopforge.exe"
fi

# --- 3. The NSIS installer, silently, in a copy of the prefix -----------------------------------
if [ -n "$installer" ]; then
  # A copy, so that what the installer writes (Program Files, registry, uninstaller) never reaches
  # the cached prefix the tests use.
  cp -a "$WINEPREFIX" "$work/prefix-install"
  (
    export WINEPREFIX=$work/prefix-install
    cp "$installer" "$work/installer.exe"
    timeout -k 10 5m "$WINE" "$work/installer.exe" /S || die "the installer failed (exit $?)"
    "$WINESERVER" -w
    # Per machine (Program Files) or per user (%LOCALAPPDATA%\Programs), as the .nsi chooses.
    places=("$WINEPREFIX/drive_c/Program Files" "$WINEPREFIX"/drive_c/users/*/AppData/Local/Programs)
    exe=$(find "${places[@]}" -iname loopforge.exe -print -quit 2>/dev/null || true)
    [ -n "$exe" ] || die "the installer put no loopforge.exe under Program Files or AppData\Local\Programs"
    echo "wine: installed ${exe#"$WINEPREFIX/drive_c/"}"
    check_version "$exe"
    # The desktop window's binary, when the installer puts it beside the CLI (it answers --version too).
    desktop=$(dirname "$exe")/loopforge-desktop.exe
    [ ! -f "$desktop" ] || check_version "$desktop"
    "$WINESERVER" -k 2>/dev/null || true
  )
  step installer
fi

[ ${#bad_pkgs[@]} -eq 0 ] || echo "wine: failing packages: ${bad_pkgs[*]}"
echo "wine-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ ${#bad_pkgs[@]} -eq 0 ]
