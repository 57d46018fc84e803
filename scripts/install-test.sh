#!/usr/bin/env bash
# `make install-test` / scripts/install-test.sh [DEB]: install the .deb (default: the one in build/release)
# on a fresh, minimal Debian 12 with neither Go nor Node, and use it there as an instructor would:
#   apt-get install --no-install-recommends ./loopforge_…_linux_amd64.deb   (its Depends alone must do:
#     python3 comes from them; the minimal root has none)
#   then, as a non-root user with a clean environment and a home of its own (no build tree in sight):
#   loopforge --version, loopforge doctor, loopforge with no command on a display (Xvfb: the window
#   must stay up, as in CI's desktop smoke test), loopforge serve (page, /api/health with and without the
#   token) and one `loopforge run` against a fake OpenAI-compatible model (bench/fakemodel, built here
#   and run outside the root on loopback: a chroot shares the network) that fails once, reflects and
#   succeeds (exit 0), then `loopforge sessions` finds it in the history.
#
# The root is made once a week by debootstrap (--variant=minbase bookworm, from this machine's Debian
# mirror) and kept as a tarball in ${XDG_CACHE_HOME:-~/.cache}/loopforge-ci/, with the .debs apt
# downloads into it (GTK and WebKit: ~90 MB), so a later run downloads only the package lists' changes.
# Each run unpacks a fresh copy; it runs in a mount namespace of its own, so the /proc, /dev and /sys
# mounts go with it even if it is killed (the EXIT trap unmounts them too). Needs root (chroot, mounts).
set -euo pipefail
[ $# -eq 0 ] || set -- "$(realpath "$1")"   # relative to where it was called from
cd "$(dirname "$0")/.."
self=$(pwd)/scripts/install-test.sh
[ "$(id -u)" -eq 0 ] || exec sudo -E bash "$self" "$@"
# A private mount namespace: nothing mounted here can leak into (or unmount from) the host.
if [ -z "${LOOPFORGE_INSTALL_TEST_NS:-}" ]; then
  LOOPFORGE_INSTALL_TEST_NS=1 exec unshare --mount --propagation private bash "$self" "$@"
fi
t0=$SECONDS
step() { echo; echo "=== $1 ($((SECONDS - t0))s)"; }
fail() { echo "install-test: FAIL: $*" >&2; exit 1; }

deb=${1:-}
if [ -z "$deb" ]; then
  shopt -s nullglob; debs=(build/release/loopforge_*_linux_amd64.deb); shopt -u nullglob
  [ ${#debs[@]} -eq 1 ] || fail "give the .deb to test (build/release has ${#debs[@]}; make release makes one)"
  deb=${debs[0]}
fi
[ -f "$deb" ] || fail "$deb: no such file"
deb=$(realpath "$deb")
version=$(dpkg-deb -f "$deb" Version)
WITH_RELEASE=1 bash scripts/setup.sh >/dev/null   # debootstrap

SUITE=bookworm VARIANT=minbase
# This machine's Debian mirror (deb822 or one-line sources), else Debian's own redirector.
mirror_for() { # SUITE: the first URI configured for it
  { cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null || true; } | awk -v s="$1" '
    /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s && uri != "") { print uri; exit } }
    /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i+1) == s) { print $i; exit } break } }'
}
MIRROR=$(mirror_for $SUITE); MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=$(mirror_for $SUITE-security)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/loopforge-ci
key=debian-$SUITE-$VARIANT-$(date -u +%G-w%V)   # a new root every ISO week: fresh, and bounded in staleness
rootball=$cache/$key.tar.gz archives=$cache/$key-apt-archives
work=$(mktemp -d "${TMPDIR:-/var/tmp}/loopforge-install-test.XXXXXX")
root=$work/root
pids=()
cleanup() {
  local rc=$?
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for m in var/cache/apt/archives sys dev/pts dev proc; do
    mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"
  done
  rm -rf --one-file-system "$work"
  [ $rc -eq 0 ] && echo "install-test: OK in $((SECONDS - t0))s" || echo "install-test: FAILED (exit $rc) after $((SECONDS - t0))s"
}
trap cleanup EXIT

mount_root() {
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  mkdir -p "$archives" "$root/var/cache/apt/archives"
  mount --bind "$archives" "$root/var/cache/apt/archives"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}
# Lazily: a recursive bind of /sys (cgroup v1 hierarchies) can refuse an eager recursive unmount.
unmount_root() { for m in var/cache/apt/archives sys dev proc; do umount -l "$root/$m"; done; }
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
# as_student CMD...: CMD in the root as the user "student", in its home, with nothing of this
# environment (no PATH to a Go or Node, no LOOPFORGE_HOME, no keys).
as_student() {
  chroot --userspec=student:student "$root" /usr/bin/env -i HOME=/home/student USER=student LOGNAME=student \
    PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 /bin/sh -c 'cd "$HOME" && exec "$@"' sh "$@"
}

step "a minimal Debian root ($key)"
if [ -f "$rootball" ]; then
  echo "cached: $rootball ($(du -h "$rootball" | cut -f1))"
  mkdir -p "$root" && tar -C "$root" --numeric-owner -xzf "$rootball"
else
  echo "no cached root: debootstrap --variant=$VARIANT $SUITE from $MIRROR"
  mkdir -p "$cache"
  rm -rf "$cache"/debian-$SUITE-$VARIANT-*   # last week's root and .debs
  debootstrap --variant=$VARIANT $SUITE "$root" "$MIRROR" | grep -E '^I: (Retriev|Base system)' | tail -3
  {
    echo "deb $MIRROR $SUITE main"
    echo "deb $MIRROR $SUITE-updates main"
    [ -z "$SECURITY" ] || echo "deb $SECURITY $SUITE-security main"
  } > "$root/etc/apt/sources.list"
  printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"   # no daemons start in a chroot
  chmod 755 "$root/usr/sbin/policy-rc.d"
  chroot "$root" useradd --create-home --shell /bin/sh student
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" --numeric-owner -czf "$rootball.tmp" . && mv "$rootball.tmp" "$rootball"
  echo "cached as $rootball ($(du -h "$rootball" | cut -f1))"
fi
mount_root

step "nothing of the build in the root: no Go, no Node, no python3, no loopforge"
in_root sh -c 'for c in go node nodejs npm python3 loopforge; do command -v $c && exit 1; done; ls /usr/local/go 2>/dev/null && exit 1; echo "none of go node nodejs npm python3 loopforge"' ||
  fail "the fresh root already has one of them"

step "apt-get install --no-install-recommends ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root apt-get update -qq
in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$deb")" > "$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install"; }
grep -E '^(The following NEW packages|[0-9]+ upgraded|Need to get|Get:.*loopforge|Setting up loopforge)' "$work/apt.log" || true
in_root dpkg -s loopforge | grep -E '^(Status|Version|Depends):'
in_root sh -c 'command -v python3 && python3 --version' || fail "python3 did not come with the package's Depends"
in_root sh -c 'for c in go node nodejs; do command -v $c && exit 1; done; true' || fail "Go or Node came with the package"
ls -l "$root/usr/bin/loopforge" "$root/usr/lib/loopforge/"

step "the binaries find each other: next to the executable, symbolic links resolved"
real=$(chroot "$root" readlink -f /usr/bin/loopforge); echo "/usr/bin/loopforge -> $real"
[ "$real" = /usr/lib/loopforge/loopforge ] || fail "/usr/bin/loopforge resolves to $real"
# What sandbox.trustedShim asks of the shim: a regular executable owned by root, writable by nobody else.
chroot "$root" stat -c '%n %U:%G %A' /usr/lib/loopforge/loopforge-desktop /usr/lib/loopforge/loopforge-shim
[ "$(chroot "$root" stat -c '%U %A' /usr/lib/loopforge/loopforge-shim)" = "root -rwxr-xr-x" ] || fail "the shim would not be trusted"

step "loopforge --version (as student)"
out=$(as_student loopforge --version); echo "$out"
case $out in "loopforge version $version (commit "*) ;; *) fail "--version: \"$out\", want loopforge version $version (commit …)" ;; esac
out=$(as_student loopforge-desktop --version); echo "$out  (loopforge-desktop: GTK and WebKit resolved)"

step "loopforge doctor"
as_student loopforge doctor || fail "loopforge doctor exited $?"

step "loopforge with no command on a display: the window (8 s under Xvfb, outside the root)"
# Xvfb picks a free display and says which (-displayfd); the root reaches it through its abstract
# socket, which a chroot shares with the host like the rest of the network namespace.
Xvfb -displayfd 3 -screen 0 1280x900x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" & pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { cat "$work/xvfb.log"; fail "Xvfb did not start"; }
display=:$(cat "$work/display")
rc=0; as_student env DISPLAY="$display" timeout 8 loopforge > "$work/desktop.log" 2>&1 || rc=$?
echo "exit $rc after 8 s (124: still running when timeout stopped it)"
[ $rc -eq 124 ] || { cat "$work/desktop.log"; fail "the window did not stay up (exit $rc)"; }
# Where no window can open, loopforge serves the web UI instead and stays up too: that is no window.
! grep -q 'serving the web UI instead' "$work/desktop.log" || { cat "$work/desktop.log"; fail "no window opened"; }
grep -iE 'error|critical|panic' "$work/desktop.log" | head -5 || true

step "loopforge serve"
as_student loopforge serve --addr 127.0.0.1:0 > "$work/serve.log" 2>&1 & pids+=($!)
url=""
for _ in $(seq 200); do   # until it prints its URL (at most 20 s)
  url=$(grep -o 'http://127.0.0.1:[0-9]*/?token=[0-9a-f]*' "$work/serve.log" || true)
  [ -n "$url" ] && break
  kill -0 "${pids[-1]}" 2>/dev/null || break
  sleep 0.1
done
cat "$work/serve.log"
[ -n "$url" ] || fail "serve printed no URL"
base=${url%%/?token=*} token=${url##*token=}
curl -fsS -c "$work/jar" -b "$work/jar" -L "$url" | grep -o '<div id="root">' || fail "the page has no <div id=\"root\">"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/health")
echo "/api/health without the token: HTTP $code"; [ "$code" = 401 ] || fail "want 401"
health=$(curl -fsS -H "Authorization: Bearer $token" "$base/api/health"); echo "/api/health with the token: $health"
grep -qF "\"version\":\"$version\"" <<<"$health" || fail "health does not report version $version"
curl -fsS -b "$work/jar" "$base/api/health" >/dev/null || fail "the page's cookie is not accepted"
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true; unset 'pids[-1]'

step "loopforge run against a fake model"
CGO_ENABLED=0 go build -trimpath -o "$work/fakemodel" ./bench/fakemodel
"$work/fakemodel" -addr 127.0.0.1:0 -ms 20ms > "$work/fakemodel.log" 2>&1 & pids+=($!)
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/^LISTENING //p' "$work/fakemodel.log"); [ -n "$port" ] && break; sleep 0.1
done
[ -n "$port" ] || { cat "$work/fakemodel.log"; fail "the fake model did not start"; }
cat > "$root/home/student/loopforge.yml" <<EOF
provider: fake
providers:
  fake:
    kind: openai
    model: fake
    base_url: http://127.0.0.1:$port/v1
    api_key_env: ""
EOF
chroot "$root" chown student:student /home/student/loopforge.yml
echo "fake model on 127.0.0.1:$port; ~/loopforge.yml names it"
rc=0
as_student loopforge run "Print the ratio of 42 to 0 [fail:1]" > "$work/run.out" 2> "$work/run.err" || rc=$?
cat "$work/run.err"; echo "--- stdout (the final code):"; cat "$work/run.out"
[ $rc -eq 0 ] || fail "loopforge run exited $rc, want 0"
grep -q 'RESULT=42' "$work/run.err" || fail "the program's output (RESULT=42) is not shown"
grep -q 'def ratio' "$work/run.out" || fail "no final code on stdout"
as_student loopforge sessions
as_student sh -c 'ls -l ~/.local/share/loopforge/history.db' || fail "no history in ~/.local/share/loopforge"

unmount_root
