#!/usr/bin/env bash
# Start-up benchmark, not part of `make test`: builds loopforge at a base commit and at the work tree (as it is,
# uncommitted changes included), each in a temporary copy with that tree's own build, then times the two side by
# side, interleaved, and prints medians and new/old ratios (bench/startup/main.go says what is measured).
#
#   bash bench/startup.sh [BASE]     BASE: the commit to compare with (default: the merge base with main)
#   RUNS=21 IDLE=1s                  rounds, and how long `serve` idles before its memory is read
#
# Needs what `make build` needs (scripts/setup.sh); the frontend is built once, here, and reused by both.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-$(git merge-base HEAD main 2>/dev/null || git rev-parse HEAD~1)}
base=$(git rev-parse --verify "$base^{commit}")
. scripts/env.sh
[ -f frontend/dist/index.html ] || (cd frontend && npm run build >/dev/null)

work=$(mktemp -d "${TMPDIR:-/tmp}/loopforge-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old" "$work/new"
git archive "$base" | tar -x -C "$work/old"
git ls-files -z --cached --others --exclude-standard |
  tar --null --ignore-failed-read -T - -c 2>/dev/null | tar -x -C "$work/new"

build() { # TREE: its own build (build_app, or a plain wails build before there was one), skipping the frontend
  local tree=$1
  rm -rf "$tree/frontend/dist" && cp -r frontend/dist "$tree/frontend/dist"
  if ! (cd "$tree" && . scripts/env.sh &&
        if grep -q '^build_app()' scripts/env.sh; then WAILS_BUILD_FLAGS=-s build_app
        else wails build -m -nosyncgomod -s ${WAILS_TAGS:+-tags $WAILS_TAGS}; fi) >"$tree.log" 2>&1; then
    tail -40 "$tree.log"; echo "bench/startup.sh: building $tree failed" >&2; exit 1
  fi
}
echo "building old ($(git log -1 --format='%h %s' "$base" | cut -c1-72)) and new (the work tree) ..." >&2
build "$work/old"
build "$work/new"
for t in old new; do
  printf '%s: %s, %s shared libraries\n' "$t" "$(du -h "$work/$t/build/bin/loopforge" | cut -f1)" \
    "$( (ldd "$work/$t/build/bin/loopforge" 2>/dev/null || true) | grep -c '=>' || true)" >&2
done
# Both measured from plain copies: a file the linker has just written can sit in the page cache in a way that
# maps more of it per page fault (a freshly built desktop binary showed ~25 MiB more RSS than a cp of it).
for t in old new; do mkdir "$work/bin-$t" && cp "$work/$t/build/bin/loopforge" "$work/bin-$t/loopforge"; done
go run ./bench/startup -old "$work/bin-old/loopforge" -new "$work/bin-new/loopforge" -n "${RUNS:-21}" -idle "${IDLE:-1s}"
