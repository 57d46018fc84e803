# Sourced by the other scripts: tool paths and build tags.
export PATH="$(go env GOPATH)/bin:$PATH"
if pkg-config --exists webkit2gtk-4.0 2>/dev/null; then WAILS_TAGS=""; else WAILS_TAGS="webkit2_41"; fi
APP=build/bin/loopforge                 # the CLI and web server: pure Go, maps no GUI library
DESKTOP=build/bin/loopforge-desktop     # the window (Wails, GTK, WebKit): $APP runs it with no command
# wails (re)writes the bindings it generates under frontend/wailsjs with mode 0755 less the umask;
# they are committed as plain 0644 files: put that back after each wails build, so that
# `make run` / `make build` leave `git status` clean.
wails_bindings_mode() { find frontend/wailsjs -type f -perm /111 -exec chmod a-x {} +; }
# Builds both binaries and the sandbox shim. wails build first: it also builds the frontend that
# $APP embeds. $APP is built without cgo, so `loopforge --version`, `run` or `serve` never load the
# ~170 shared libraries of GTK and WebKit; with no command on a display it executes $DESKTOP.
# The shim is what the sandbox re-executes for every run of generated code: ~20 ms cheaper than
# re-executing the app (it falls back to the app when absent).
# WAILS_BUILD_FLAGS: more flags for wails build (bench/startup.sh passes -s: reuse frontend/dist).
build_app() {
  wails build -m -nosyncgomod ${WAILS_BUILD_FLAGS:-} ${WAILS_TAGS:+-tags $WAILS_TAGS} || return
  wails_bindings_mode
  CGO_ENABLED=0 go build -ldflags "-s -w" -o "$APP" . || return
  CGO_ENABLED=0 go build -o build/bin/loopforge-shim ./backend/sandbox/cmd/loopforge-shim
}
