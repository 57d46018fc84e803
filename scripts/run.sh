#!/usr/bin/env bash
# `make run`: set up what is missing, build the app, open the desktop window when
# a display exists, otherwise serve the web UI on loopback (it prints its URL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. scripts/env.sh
wails build -m -nosyncgomod ${WAILS_TAGS:+-tags $WAILS_TAGS}
wails_bindings_mode   # the generated bindings keep their committed mode (scripts/env.sh)
# A small static shim next to the app: the sandbox re-executes it for every run of generated code,
# which is ~20 ms cheaper than re-executing the whole app (falls back to the app when absent).
CGO_ENABLED=0 go build -o build/bin/loopforge-shim ./backend/sandbox/cmd/loopforge-shim
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${1:-}" != serve ]; then
  exec "$APP"
else
  echo "No display found: starting the web UI instead (loopforge serve)."
  exec "$APP" serve
fi
