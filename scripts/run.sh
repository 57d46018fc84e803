#!/usr/bin/env bash
# `make run`: set up what is missing, build the app, open the desktop window when
# a display exists, otherwise serve the web UI on loopback (it prints its URL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. scripts/env.sh
build_app   # $APP (CLI, web server), $DESKTOP (the window) and the sandbox shim: scripts/env.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${1:-}" != serve ]; then
  exec "$APP"
else
  echo "No display found: starting the web UI instead (loopforge serve)."
  exec "$APP" serve
fi
