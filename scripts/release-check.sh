#!/usr/bin/env bash
# `make release-check`: is the release reproducible? Builds it twice and compares the two SHA256SUMS:
#   a: here, as `make release` does (into build/release-check/a);
#   b: from a fresh checkout of the same commit in another directory, with an empty Go build cache
#      (so every package, the cgo ones included, is compiled again, and no file left in this tree
#      by an earlier build, ignored or not, is used), into build/release-check/b.
# For an artifact that differs it names the files inside that differ (archives and the .deb are
# unpacked; an installer .exe is compared whole). Commit first: a tree with changes gets another
# version than its commit. RELEASE_TARGETS as for `make release`.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
dir=$(pwd)/build/release-check
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "release-check: commit your changes first" >&2; exit 2; }
rm -rf "$dir"; mkdir -p "$dir"
other=$(mktemp -d "${TMPDIR:-/tmp}/loopforge-release-check.XXXXXX")
cleanup() { git worktree remove --force "$other/src" 2>/dev/null || true; rm -rf "$other"; }
trap cleanup EXIT

RELEASE_DIR=$dir/a bash scripts/release.sh
echo "release-check: first build done ($((SECONDS - t0))s)"
git worktree add --detach -q "$other/src" HEAD
(cd "$other/src" && GOCACHE=$other/gocache RELEASE_DIR=$dir/b bash scripts/release.sh)
echo "release-check: second build done ($((SECONDS - t0))s)"

# unpack FILE DIR: an artifact's contents (the .deb: its control files and its data).
unpack() {
  mkdir -p "$2"
  case $1 in
  *.tar.gz) tar -C "$2" -xzf "$1" ;;
  *.zip) unzip -q -d "$2" "$1" ;;
  *.deb) dpkg-deb -R "$1" "$2" ;;
  *) cp "$1" "$2/" ;;
  esac
}

same=0 differ=0
while read -r sum name; do
  if grep -qx "$sum  $name" "$dir/b/SHA256SUMS"; then
    echo "identical  $name"; same=$((same + 1)); continue
  fi
  differ=$((differ + 1)); echo "DIFFERENT  $name"
  if [ -f "$dir/b/$name" ]; then
    unpack "$dir/a/$name" "$dir/x/a"; unpack "$dir/b/$name" "$dir/x/b"
    diff -rq "$dir/x/a" "$dir/x/b" | sed 's/^/           /' || true
    rm -rf "$dir/x"
  else
    echo "           (the second build has no $name)"
  fi
done < "$dir/a/SHA256SUMS"
echo "release-check: $same identical, $differ different, in $((SECONDS - t0))s"
[ "$differ" -eq 0 ]
