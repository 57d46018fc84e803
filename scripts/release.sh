#!/usr/bin/env bash
# `make release`: versioned artifacts for every platform, with checksums, in build/release/:
#   loopforge_<version>_linux_amd64.deb       CLI, desktop window, sandbox shim, menu entry and icon
#   loopforge_<version>_linux_amd64.tar.gz    the same binaries, no install step
#   loopforge_<version>_linux_arm64.tar.gz    CLI (web UI included) and shim, static; no desktop window
#   loopforge_<version>_windows_amd64_setup.exe  NSIS installer of both .exe (silent: /S)
#   loopforge_<version>_windows_amd64.zip     the same two .exe, portable
#   loopforge_<version>_darwin_{amd64,arm64}.tar.gz  CLI and shim (no desktop window: the web UI)
#   SHA256SUMS
# The version is the stamp of scripts/env.sh (version_vars): git describe, else 0.1.0+<commit>.
#
# Why a script and not GoReleaser: two of the builds are not plain `go build`s. The Linux window is a
# cgo build against the system's GTK and WebKit (it has to be built on the Debian it targets, by
# `wails build`, and its package Depends come from dpkg-shlibdeps on that very binary); the Windows
# window is `wails build`'s own cross build with its resources and NSIS installer. GoReleaser would only
# wrap those commands (its deb packager, nfpm, is not Debian's dpkg-deb, and would be one more tool to
# download from outside the Go proxy, Debian and npm, which are all this machine may reach). The rest
# is tar, zip, dpkg-deb and sha256sum.
#
# Reproducible: every input is the commit (the date stamped in is the commit's, SOURCE_DATE_EPOCH);
# archives have sorted names, fixed owners, modes and times, and no compressor time stamps. `make
# release-check` builds twice and compares SHA256SUMS.
#
# RELEASE_TARGETS: a subset of "linux_amd64 linux_arm64 windows_amd64 darwin_amd64 darwin_arm64"
# (default: all). RELEASE_DIR: where to put them (default build/release; earlier artifacts there go).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
OUT=${RELEASE_DIR:-build/release}
TARGETS=${RELEASE_TARGETS:-linux_amd64 linux_arm64 windows_amd64 darwin_amd64 darwin_arm64}
# The .deb's Maintainer: the address the project's commits are made with.
MAINTAINER=${LOOPFORGE_MAINTAINER:-loopforge contributors <maintainers@users.noreply.a-seed-11050471.example>}

WITH_RELEASE=1 bash scripts/setup.sh
. scripts/env.sh
version_vars
LDFLAGS=$(version_ldflags)
[ -z "$DIRTY" ] || echo "release: warning: uncommitted changes; the version says so ($VERSION)" >&2
echo "release: loopforge $VERSION (commit $COMMIT, $DATE) for: $TARGETS"

work=$(mktemp -d "${TMPDIR:-/tmp}/loopforge-release.XXXXXX")
# What a Windows wails build leaves in the tree even when it fails half-way (see target_windows_amd64).
cleanup() { rm -rf "$work"; rm -f loopforge-res.syso build/bin/nsis-release.nsh build/windows/info.json; }
trap cleanup EXIT
mkdir -p "$OUT"; rm -f "$OUT"/loopforge_* "$OUT"/SHA256SUMS   # only what an earlier run put there
OUT=$(cd "$OUT" && pwd)
step() { echo "release: $1 ($((SECONDS - t0))s)"; }

# --- building blocks ---------------------------------------------------------------------------

# gobuild OS ARCH OUTPUT PACKAGE: a pure-Go (no cgo) stamped build.
gobuild() {
  CGO_ENABLED=0 GOOS=$1 GOARCH=$2 go build $GO_BUILD_FLAGS -ldflags "-s -w $LDFLAGS" -o "$3" "$4"
}

# wailsbuild PLATFORM [FLAGS...]: the desktop build into build/bin. The frontend is built once (build_ui)
# and the bindings are the committed ones (CI checks they are current), so neither is redone here.
wailsbuild() {
  local platform=$1; shift
  wails build -v 0 -m -nosyncgomod -s -skipbindings -trimpath -ldflags "$LDFLAGS" -platform "$platform" "$@"
}

build_ui() { (cd frontend && npm run build) >"$work/ui.log" 2>&1 || { cat "$work/ui.log" >&2; return 1; }; }

# check_stamp FILE: the binary carries this release's stamp (binaries for another OS cannot be run here).
check_stamp() {
  grep -qaF "$VERSION" "$1" && grep -qaF "$DATE" "$1" || { echo "release: $1 is not stamped $VERSION $DATE" >&2; return 1; }
}

# check_version FILE: a binary this machine runs prints the stamped version line.
check_version() {
  local want="loopforge version $VERSION (commit $COMMIT, $DATE)" got
  got=$("$1" --version)
  [ "$got" = "$want" ] || { echo "release: $1 --version says \"$got\", want \"$want\"" >&2; return 1; }
}

# normalize DIR: what goes into an archive depends on the source only: modes 755 (directories and
# executables) or 644, and every time stamp the commit's.
normalize() {
  find "$1" -type d -exec chmod 755 {} +
  find "$1" -type f -perm /111 -exec chmod 755 {} +
  find "$1" -type f ! -perm /111 -exec chmod 644 {} +
  find "$1" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
}

# tgz DIR: DIR's parent/DIR.tar.gz into $OUT, DIR as its top folder.
tgz() {
  local dir=$1 name; name=$(basename "$1")
  normalize "$dir"
  tar -C "$(dirname "$dir")" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    --format=gnu -cf - "$name" | gzip -n -9 > "$OUT/$name.tar.gz"
}

# zipdir DIR: DIR.zip into $OUT, DIR as its top folder; -X leaves out owners and extra time stamps, and
# TZ=UTC makes the DOS times the same wherever it is built.
zipdir() {
  local dir=$1 name; name=$(basename "$1")
  normalize "$dir"
  rm -f "$OUT/$name.zip"
  (cd "$(dirname "$dir")" && find "$name" -type f | LC_ALL=C sort | TZ=UTC zip -q -X -9 -D -@ "$OUT/$name.zip")
}

# readme OS: the README.txt that goes into an archive.
readme() {
  cat <<EOF
loopforge $VERSION (commit $COMMIT, $DATE)

loopforge watches AI models write, run and fix code: generate -> execute in a sandbox -> reflect on the
error -> generate again. It needs a key for one provider (or a local model): put it in the environment
(GEMINI_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY) or in a .env file in the
config folder below.

EOF
  case $1 in
  linux) cat <<'EOF'
Files: loopforge (the CLI and web server), loopforge-desktop (the window: needs GTK 3 and WebKitGTK),
loopforge-shim (the sandbox's start-up helper). Keep the three in one folder. Generated code runs under
/usr/bin/python3; install bubblewrap for the strongest sandbox (`loopforge doctor` says what is missing).

  ./loopforge                 the desktop window
  ./loopforge serve           the web UI in your browser (loopback only)
  ./loopforge run "Print the first 20 Fibonacci numbers"

Config and .env: ~/.config/loopforge/   History: ~/.local/share/loopforge/history.db
(or $LOOPFORGE_HOME for all of it). On Debian/Ubuntu the .deb is easier: sudo apt install ./loopforge_*.deb
EOF
  ;;
  linux-cli) cat <<'EOF'
Files: loopforge (the CLI and web server; no desktop window in this build) and loopforge-shim (the
sandbox's start-up helper). Keep the two in one folder. Generated code runs under /usr/bin/python3;
install bubblewrap for the strongest sandbox (`loopforge doctor` says what is missing).

  ./loopforge serve           the web UI in your browser (loopback only)
  ./loopforge run "Print the first 20 Fibonacci numbers"

Config and .env: ~/.config/loopforge/   History: ~/.local/share/loopforge/history.db
(or $LOOPFORGE_HOME for all of it).
EOF
  ;;
  windows) cat <<'EOF'
Files: loopforge-desktop.exe (the window; it uses Microsoft Edge WebView2, part of Windows 10 and 11)
and loopforge.exe (the CLI and web server, for a terminal). Keep the two in one folder.

  loopforge-desktop.exe       the desktop window (double-click)
  loopforge.exe serve         the web UI in your browser (loopback only)
  loopforge.exe run "Print the first 20 Fibonacci numbers"

Generated code runs under Python 3 (python.org or the Microsoft Store).
Config and .env: %APPDATA%\loopforge\   History and logs: %LOCALAPPDATA%\loopforge\
(or %LOOPFORGE_HOME% for all of it).
EOF
  ;;
  darwin) cat <<'EOF'
Files: loopforge (the CLI and web server; with no command it opens the web UI in your browser) and
loopforge-shim (the sandbox's start-up helper). Keep the two in one folder. These binaries are not
signed: the first time, run `xattr -d com.apple.quarantine loopforge loopforge-shim` in this folder
(or right-click loopforge in Finder, Open).

  ./loopforge                 the web UI in your browser
  ./loopforge run "Print the first 20 Fibonacci numbers"

Generated code runs under python3 (the Xcode command line tools or python.org).
Config, .env and history: ~/Library/Application Support/loopforge/ (or $LOOPFORGE_HOME for all of it).
EOF
  ;;
  esac
}

# --- targets -----------------------------------------------------------------------------------

target_linux_amd64() {
  local name=loopforge_${VERSION}_linux_amd64 d
  d=$work/$name; mkdir -p "$d"
  # PIE, as Debian builds its C programs (hardening: ASLR for the whole binary; lintian checks it).
  # WebKitGTK 4.1 whatever the build machine's default: it is the one every supported release has
  # (Debian 12 and 13, Ubuntu 22.04 and 24.04+), while 4.0 is gone from Ubuntu 24.04 and Debian 13.
  GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildmode=pie" wailsbuild linux/amd64 -tags webkit2_41
  cp build/bin/loopforge-desktop "$d/"
  gobuild linux amd64 "$d/loopforge" .
  gobuild linux amd64 "$d/loopforge-shim" ./backend/sandbox/cmd/loopforge-shim
  check_version "$d/loopforge"; check_version "$d/loopforge-desktop"
  if ldd "$d/loopforge" >/dev/null 2>&1; then echo "release: the CLI build is not static" >&2; return 1; fi
  readme linux > "$d/README.txt"
  tgz "$d"
  deb "$d"
}

# deb BINDIR: the Debian package of the binaries in BINDIR (from target_linux_amd64). They live in
# /usr/lib/loopforge, together, because each finds its partner next to its own executable, with
# symbolic links resolved (os.Executable): the CLI the desktop build (cli.DesktopName), both the shim
# (sandbox.ShimName, trusted only when root owns it, as dpkg installs it). /usr/bin holds links.
deb() {
  local bin=$1 pkg=$work/deb root=$work/deb/debian/loopforge
  local file=$OUT/loopforge_${VERSION}_linux_amd64.deb
  mkdir -p "$root/DEBIAN" "$root/usr/lib/loopforge" "$root/usr/bin" "$root/usr/share/applications" \
    "$root/usr/share/icons/hicolor/512x512@2/apps" "$root/usr/share/doc/loopforge"
  cp "$bin/loopforge" "$bin/loopforge-desktop" "$bin/loopforge-shim" "$root/usr/lib/loopforge/"
  ln -s ../lib/loopforge/loopforge "$root/usr/bin/loopforge"
  ln -s ../lib/loopforge/loopforge-desktop "$root/usr/bin/loopforge-desktop"
  cp build/appicon.png "$root/usr/share/icons/hicolor/512x512@2/apps/loopforge.png" # 1024x1024
  readme linux > "$root/usr/share/doc/loopforge/README"
  cat > "$root/usr/share/applications/loopforge.desktop" <<'EOF'
[Desktop Entry]
Type=Application
Name=loopforge
GenericName=Code-generation loop
Comment=Watch AI models write, run and fix code
Exec=loopforge-desktop
Icon=loopforge
Terminal=false
Categories=Development;Education;
Keywords=AI;LLM;code;teaching;
EOF
  # Depends: the shared libraries the desktop build links, as Debian's own tool names them (GTK 3 and
  # WebKitGTK 4.1), and python3, which
  # runs the generated code (/usr/bin/python3).
  mkdir -p "$pkg/debian"
  printf 'Source: loopforge\n\nPackage: loopforge\nArchitecture: amd64\n' > "$pkg/debian/control"
  local shlibs
  # (It warns that the binary is not "installed in its package's directory" whatever the layout: left out.)
  shlibs=$(cd "$pkg" && dpkg-shlibdeps -O -e debian/loopforge/usr/lib/loopforge/loopforge-desktop 2>"$work/shlibdeps.err") ||
    { cat "$work/shlibdeps.err" >&2; return 1; }
  grep -v 'should already be installed' "$work/shlibdeps.err" >&2 || true
  shlibs=${shlibs#shlibs:Depends=}
  (cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
  normalize "$root"
  cat > "$root/DEBIAN/control" <<EOF
Package: loopforge
Version: $VERSION
Architecture: amd64
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $shlibs, python3
Recommends: bubblewrap, python3-matplotlib
Section: devel
Priority: optional
Description: watch AI models write, run and fix code
 loopforge runs a code-generation loop: a model writes a program, the program
 runs in a sandbox, on failure the model reflects on the error and writes it
 again, until it runs cleanly or the iteration limit is reached. Every run is
 kept in a local SQLite history.
 .
 It has three faces over one backend: a desktop window (loopforge with no
 command, or the menu entry), a web UI on loopback (loopforge serve) and a
 headless CLI (loopforge run). bubblewrap adds namespaces to the sandbox;
 python3-matplotlib lets programs draw pictures.
EOF
  touch -d "@$SOURCE_DATE_EPOCH" "$root/DEBIAN/control"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$file" >/dev/null
}

target_linux_arm64() {
  local name=loopforge_${VERSION}_linux_arm64 d
  d=$work/$name; mkdir -p "$d"
  gobuild linux arm64 "$d/loopforge" .
  gobuild linux arm64 "$d/loopforge-shim" ./backend/sandbox/cmd/loopforge-shim
  check_stamp "$d/loopforge"
  readme linux-cli > "$d/README.txt"
  tgz "$d"
}

target_darwin() {
  local arch=$1 name d
  name=loopforge_${VERSION}_darwin_$arch; d=$work/$name; mkdir -p "$d"
  gobuild darwin "$arch" "$d/loopforge" .
  gobuild darwin "$arch" "$d/loopforge-shim" ./backend/sandbox/cmd/loopforge-shim
  check_stamp "$d/loopforge"
  readme darwin > "$d/README.txt"
  tgz "$d"
}
target_darwin_amd64() { target_darwin amd64; }
target_darwin_arm64() { target_darwin arm64; }

# The Windows window is wails' cross build (its WebView2 binding needs no cgo) with its resources
# (icon, manifest, version: build/windows, written by wails from build/appicon.png and wails.json, and
# info.json written here with this version) and its NSIS installer (build/windows/installer/project.nsi,
# committed, which also installs the CLI). While it builds, wails writes loopforge-res.syso at the root
# (removed after the build, and by cleanup).
target_windows_amd64() {
  local name=loopforge_${VERSION}_windows_amd64 d numeric=${VERSION%%[+-]*}
  d=$work/$name; mkdir -p "$d"
  [[ $numeric =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || numeric=0.0.0  # Windows wants four numbers (the 4th: 0)
  gobuild windows amd64 "$d/loopforge.exe" .
  check_stamp "$d/loopforge.exe"
  cat > build/windows/info.json <<EOF
{
	"fixed": {"file_version": "$numeric", "product_version": "$numeric"},
	"info": {
		"0000": {
			"ProductVersion": "$VERSION",
			"CompanyName": "loopforge",
			"FileDescription": "loopforge",
			"LegalCopyright": "loopforge contributors",
			"ProductName": "loopforge",
			"Comments": "Watch AI models write, run and fix code"
		}
	}
}
EOF
  cat > build/bin/nsis-release.nsh <<EOF
!define INFO_PRODUCTVERSION "$VERSION"
!define LOOPFORGE_NUMERIC_VERSION "$numeric"
!define LOOPFORGE_CLI "$d/loopforge.exe"
!define LOOPFORGE_OUTFILE "$OUT/${name}_setup.exe"
EOF
  CGO_ENABLED=0 wailsbuild windows/amd64 -nsis
  rm -f build/bin/nsis-release.nsh build/windows/info.json
  [ -s "$OUT/${name}_setup.exe" ] || { echo "release: wails made no installer (is makensis installed?)" >&2; return 1; }
  cp build/bin/loopforge-desktop.exe "$d/"
  check_stamp "$d/loopforge-desktop.exe"
  readme windows | sed 's/$/\r/' > "$d/README.txt"
  zipdir "$d"
}

# --- main --------------------------------------------------------------------------------------

build_ui; step "frontend built"
for t in $TARGETS; do
  declare -F "target_$t" >/dev/null || { echo "release: unknown target $t" >&2; exit 2; }
  "target_$t"; step "$t done"
done
(cd "$OUT" && sha256sum loopforge_* > SHA256SUMS)
git diff --exit-code --stat -- frontend/wailsjs go.mod go.sum >/dev/null ||
  { echo "release: the build changed committed files:" >&2; git status --short >&2; exit 1; }
ls -l "$OUT" | tail -n +2
echo "release: $OUT in $((SECONDS - t0))s"
