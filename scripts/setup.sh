#!/usr/bin/env bash
# Installs whatever is missing for building and testing loopforge on Debian/Ubuntu.
# Idempotent: every step checks first. Uses sudo when not root.
# WITH_BROWSER=1 also installs Xvfb and Chromium (headless UI checks, CI), and xdotool and GTK 3 for
# Python (scripts/drop-test.sh).
# WITH_RELEASE=1 also installs what `make release` and scripts/install-test.sh use (makensis, zip,
# dpkg-shlibdeps, debootstrap, Xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
WAILS_VERSION=v2.15.0      # keep equal to the wails version in go.mod; never @latest
GOLANGCI_LINT_VERSION=v2.15.0   # the Go linter `make test` runs (config: .golangci.yml); never @latest
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo

need=""
command -v gcc >/dev/null        || need+=" build-essential"
command -v pkg-config >/dev/null || need+=" pkg-config"
command -v git >/dev/null        || need+=" git"
command -v curl >/dev/null       || need+=" curl ca-certificates"
[ -x /usr/bin/python3 ]          || need+=" python3"           # generated code runs under /usr/bin/python3
command -v bwrap >/dev/null      || need+=" bubblewrap"        # sandbox namespaces for generated code (loopforge doctor)
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || need+=" python3-matplotlib"  # programs' figures (loopforge doctor: Pictures)
command -v node >/dev/null       || need+=" nodejs npm"
pkg-config --exists gtk+-3.0 2>/dev/null || need+=" libgtk-3-dev"
pkg-config --exists webkit2gtk-4.0 2>/dev/null || pkg-config --exists webkit2gtk-4.1 2>/dev/null || need+=" WEBKIT"
if [ "${WITH_BROWSER:-0}" = 1 ]; then
  command -v Xvfb >/dev/null     || need+=" xvfb xauth"
  command -v chromium >/dev/null || need+=" chromium"
  # scripts/drop-test.sh: a real drop on the window (xdotool drags from a small GTK source).
  command -v xdotool >/dev/null  || need+=" xdotool"
  /usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
    need+=" python3-gi gir1.2-gtk-3.0"
fi
if [ "${WITH_RELEASE:-0}" = 1 ]; then
  command -v makensis >/dev/null       || need+=" nsis"
  # The .deb's window links WebKitGTK 4.1: the one Debian 12, Ubuntu 22.04 and every later release have
  # (4.0 is gone from Ubuntu 24.04 and Debian 13). Both -dev packages install side by side.
  pkg-config --exists webkit2gtk-4.1 2>/dev/null || need+=" libwebkit2gtk-4.1-dev"
  command -v zip >/dev/null            || need+=" zip"
  command -v dpkg-shlibdeps >/dev/null || need+=" dpkg-dev"
  command -v debootstrap >/dev/null    || need+=" debootstrap"
  command -v Xvfb >/dev/null           || need+=" xvfb"
fi
if [ -n "$need" ]; then
  echo "setup: installing Debian packages:$need"
  # A fresh machine often runs unattended-upgrades (or another set-up) at the same time: wait for
  # dpkg's lock instead of failing at once.
  apt="$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600"
  $apt update -qq
  # Debian 12 / Ubuntu 22.04 ship webkit2gtk-4.0; newer releases only 4.1 (build tag webkit2_41).
  webkit=libwebkit2gtk-4.1-dev
  apt-cache show libwebkit2gtk-4.0-dev >/dev/null 2>&1 && webkit=libwebkit2gtk-4.0-dev
  $apt install -y -qq --no-install-recommends ${need/WEBKIT/$webkit} >/dev/null
fi

command -v go >/dev/null || { echo "setup: Go 1.26 or newer is required (https://go.dev/dl/)" >&2; exit 1; }
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a==20&&b>=19)?0:1)' ||
  { echo "setup: Node.js 20.19 or newer is required for the frontend build (found $(node --version))" >&2; exit 1; }
if [ "$("$(go env GOPATH)/bin/wails" version 2>/dev/null | head -1)" != "$WAILS_VERSION" ]; then
  echo "setup: installing the Wails CLI $WAILS_VERSION"
  go install "github.com/wailsapp/wails/v2/cmd/wails@$WAILS_VERSION"
fi
if [ "v$("$(go env GOPATH)/bin/golangci-lint" version --short 2>/dev/null)" != "$GOLANGCI_LINT_VERSION" ]; then
  echo "setup: installing golangci-lint $GOLANGCI_LINT_VERSION"
  go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_LINT_VERSION"
fi
go mod download
if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
  echo "setup: installing frontend packages"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
fi
