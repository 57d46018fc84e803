#!/usr/bin/env bash
# `make run`: set up what is missing, build the app, open the desktop window when
# a display exists, otherwise serve the web UI on loopback (it prints its URL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. scripts/env.sh
wails build -m -nosyncgomod ${WAILS_TAGS:+-tags $WAILS_TAGS}
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${1:-}" != serve ]; then
  exec "$APP"
else
  echo "No display found: starting the web UI instead (loopforge serve)."
  exec "$APP" serve
fi
