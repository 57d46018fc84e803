# Sourced by the other scripts: tool paths and build tags.
export PATH="$(go env GOPATH)/bin:$PATH"
if pkg-config --exists webkit2gtk-4.0 2>/dev/null; then WAILS_TAGS=""; else WAILS_TAGS="webkit2_41"; fi
APP=build/bin/loopforge
