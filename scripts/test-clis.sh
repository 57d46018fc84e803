#!/usr/bin/env bash
# `make test-clis` (not part of `make test`): install the pinned real coding
# CLIs from npm into a cache outside the repo, then drive each one through its
# loopforge adapter against a fake model server written in Go (Responses API
# for codex, Messages API for claude, Gemini SSE for gemini). No network
# beyond the npm registry, no real key. It catches drift in the CLIs' flags
# and JSON events: bump a pin below and run it.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS

CODEX_VERSION=0.169.0    # @openai/codex
CLAUDE_VERSION=2.1.197   # @anthropic-ai/claude-code
GEMINI_VERSION=0.61.0    # @google/gemini-cli

base="${LOOPFORGE_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loopforge/clis}"
dir="$base/codex-$CODEX_VERSION+claude-$CLAUDE_VERSION+gemini-$GEMINI_VERSION"
# The test puts CODEX_HOME in here, and codex refuses to set up its sandbox
# helper under a temp dir.
case "$dir" in
/tmp/* | "${TMPDIR:-/tmp}"/*) echo "test-clis: the CLI cache must not be under a temp dir: $dir" >&2; exit 2 ;;
esac
for tool in node npm go; do
	command -v "$tool" >/dev/null || { echo "test-clis: $tool is not installed" >&2; exit 2; }
done

version() { node -p "require('$dir/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(version @openai/codex)" != "$CODEX_VERSION" ] ||
	[ "$(version @anthropic-ai/claude-code)" != "$CLAUDE_VERSION" ] ||
	[ "$(version @google/gemini-cli)" != "$GEMINI_VERSION" ]; then
	echo "test-clis: installing the CLIs into $dir"
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || echo '{"name":"loopforge-test-clis","private":true}' >"$dir/package.json"
	# Never --omit=optional: codex and claude ship their native binaries as
	# optional per-platform dependencies.
	npm install --prefix "$dir" --no-audit --no-fund --save-exact \
		"@openai/codex@$CODEX_VERSION" "@anthropic-ai/claude-code@$CLAUDE_VERSION" "@google/gemini-cli@$GEMINI_VERSION"
fi
for bin in codex claude gemini; do
	[ -x "$dir/node_modules/.bin/$bin" ] || { echo "test-clis: $dir/node_modules/.bin/$bin is missing after npm install" >&2; exit 1; }
done
t1=$SECONDS

LOOPFORGE_REAL_CLIS="$dir" go test -count=1 -timeout 10m -run 'RealCLI' -v \
	./backend/provider/codexcli/ ./backend/provider/claudecli/ ./backend/provider/geminicli/
echo "make test-clis: passed in $((SECONDS - t0))s (install/check $((t1 - t0))s, tests $((SECONDS - t1))s)"
