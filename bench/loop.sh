#!/usr/bin/env bash
# Loop benchmark, not part of `make test`: whole `loopforge run` and `loopforge compare` processes, side by side
# with the same loop written with LangGraph.js (the peer), all against one fake OpenAI-compatible model
# (bench/fakemodel) whose answers take a scripted time; interleaved rounds, medians and ratios
# (bench/loopbench/main.go says what is measured).
#
#   bash bench/loop.sh [BASE]     BASE: also build loopforge at this commit and compare old/new (default: none)
#   RUNS=15                       rounds
#   MODEL_MS=200ms                how long each model answer takes (10 chunks)
#   PEERS=DIR                     where peers/langgraph-js is (default: ../shared/peers beside the main checkout)
#   PEER_DIR=DIR                  a peer already installed (its node_modules present): skips npm ci
#   NO_PEER=1                     leave the peer out
#
# The peer's packages (@langchain/langgraph and friends, pinned by its package-lock.json) are installed with
# npm ci into a temporary copy, never into this repository. Both loops run the same interpreter
# (/usr/bin/python3, first on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/loopforge-loopbench-XXXXXX")
model_pid=
cleanup() {
  [ -n "$model_pid" ] && kill "$model_pid" 2>/dev/null && { wait "$model_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT

build() { # SRC OUT: the CLI (no cgo, as build_app makes it) and the sandbox shim beside it
  mkdir -p "$2"
  (cd "$1" && CGO_ENABLED=0 go build -o "$2/loopforge" . &&
    CGO_ENABLED=0 go build -o "$2/loopforge-shim" ./backend/sandbox/cmd/loopforge-shim) >"$2.log" 2>&1 ||
    { tail -30 "$2.log"; echo "bench/loop.sh: building $1 failed" >&2; exit 1; }
}

args=()
echo "building new (the work tree) ..." >&2
build "$PWD" "$work/new"
args+=(-new "$work/new/loopforge")
if [ $# -ge 1 ]; then
  base=$(git rev-parse --verify "$1^{commit}")
  echo "building old ($(git log -1 --format='%h %s' "$base" | cut -c1-72)) ..." >&2
  mkdir -p "$work/old-src"
  git archive "$base" | tar -x -C "$work/old-src"
  build "$work/old-src" "$work/old"
  args+=(-old "$work/old/loopforge")
fi

if [ "${NO_PEER:-0}" != 1 ]; then
  peer=${PEER_DIR:-}
  if [ -z "$peer" ]; then
    peers=${PEERS:-$(dirname "$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")")/shared/peers}
    if [ -f "$peers/langgraph-js/loop.mjs" ]; then
      echo "installing the LangGraph.js peer (npm ci) into a temporary copy ..." >&2
      cp -r "$peers/langgraph-js" "$work/peer" && chmod -R u+w "$work/peer"
      if (cd "$work/peer" && npm ci --no-audit --no-fund >"$work/npm.log" 2>&1); then
        peer=$work/peer
      else
        tail -20 "$work/npm.log"; echo "bench/loop.sh: npm ci failed; measuring without the peer" >&2
      fi
    else
      echo "bench/loop.sh: no peer at $peers/langgraph-js; measuring without it" >&2
    fi
  fi
  [ -n "$peer" ] && args+=(-peer "$peer")
fi

go build -o "$work/fakemodel" ./bench/fakemodel
go build -o "$work/loopbench" ./bench/loopbench
"$work/fakemodel" -ms "${MODEL_MS:-200ms}" >"$work/model.out" 2>&1 &
model_pid=$!
port=
for _ in $(seq 100); do
  port=$(awk '/^LISTENING/{print $2; exit}' "$work/model.out")
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { cat "$work/model.out"; echo "bench/loop.sh: the fake model did not start" >&2; exit 1; }
echo "fake model at http://127.0.0.1:$port, ${MODEL_MS:-200ms} per answer" >&2
"$work/loopbench" -model "http://127.0.0.1:$port" -n "${RUNS:-15}" "${args[@]}"
