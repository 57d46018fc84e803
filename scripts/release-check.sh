#!/usr/bin/env bash
# `make release-check`: builds the release twice (build/release-check/a and b) and compares the two
# SHA256SUMS: every artifact must come out byte-identical. For one that does not, it names the files
# inside that differ (archives and the .deb are unpacked; an installer .exe is compared whole).
# RELEASE_TARGETS as for `make release`.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
dir=build/release-check
rm -rf "$dir"
RELEASE_DIR=$dir/a bash scripts/release.sh
RELEASE_DIR=$dir/b bash scripts/release.sh

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
  unpack "$dir/a/$name" "$dir/x/a"; unpack "$dir/b/$name" "$dir/x/b"
  diff -rq "$dir/x/a" "$dir/x/b" | sed 's/^/           /' || true
  rm -rf "$dir/x"
done < "$dir/a/SHA256SUMS"
echo "release-check: $same identical, $differ different, in $((SECONDS - t0))s"
[ "$differ" -eq 0 ]
