# Sourced by the other scripts: tool paths and build tags.
export PATH="$(go env GOPATH)/bin:$PATH"
if pkg-config --exists webkit2gtk-4.0 2>/dev/null; then WAILS_TAGS=""; else WAILS_TAGS="webkit2_41"; fi
APP=build/bin/loopforge
# wails (re)writes the bindings it generates under frontend/wailsjs with mode 0755 less the umask;
# they are committed as plain 0644 files: put that back after each wails build, so that
# `make run` / `make build` leave `git status` clean.
wails_bindings_mode() { find frontend/wailsjs -type f -perm /111 -exec chmod a-x {} +; }
