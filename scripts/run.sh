#!/usr/bin/env bash
# `make run`: set up what is missing, build the app, and open it: `loopforge` with no command opens the desktop
# window on a display; with no display it serves the web UI on loopback and prints its URL (see README).
# `bash scripts/run.sh serve` serves the web UI either way.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. scripts/env.sh
build_app   # $APP (CLI, web server), $DESKTOP (the window) and the sandbox shim: scripts/env.sh
if [ "${1:-}" = serve ]; then
  exec "$APP" serve
fi
exec "$APP"
