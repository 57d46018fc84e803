# Sourced by the other scripts (and by make, with /bin/sh: keep to what dash runs): tool paths, build tags,
# the version stamp.
export PATH="$(go env GOPATH)/bin:$PATH"
if pkg-config --exists webkit2gtk-4.0 2>/dev/null; then WAILS_TAGS=""; else WAILS_TAGS="webkit2_41"; fi
APP=build/bin/loopforge                 # the CLI and web server: pure Go, maps no GUI library
DESKTOP=build/bin/loopforge-desktop     # the window (Wails, GTK, WebKit): $APP runs it with no command
# wails (re)writes the bindings it generates under frontend/wailsjs with mode 0755 less the umask;
# they are committed as plain 0644 files: put that back after each wails build, so that
# `make run` / `make build` leave `git status` clean.
wails_bindings_mode() { find frontend/wailsjs -type f -perm /111 -exec chmod a-x {} +; }
# The build's identity, stamped with -ldflags -X into backend/service/version.go (see version_ldflags):
#   VERSION  `git describe --tags` (tag v1.2.3 -> 1.2.3, three commits later -> 1.2.3+3.gabcdef1), else
#            the default in version.go plus the short commit (0.1.0+52bb02b); ".dirty" when tracked files
#            have uncommitted changes (such a build is not the commit's)
#   COMMIT   the short commit (52bb02b, "52bb02b-dirty")
#   SOURCE_DATE_EPOCH  the commit's time (an exported SOURCE_DATE_EPOCH wins), DATE its day in UTC.
# Never the wall clock, so two builds of one commit are byte-identical (reproducible-builds.org).
version_vars() {
  local base describe
  base=$(sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' backend/service/version.go)
  [ -n "$base" ] || { echo "version_vars: no default Version in backend/service/version.go" >&2; return 1; }
  VERSION=$base COMMIT="" DIRTY=""
  if git rev-parse --verify -q HEAD >/dev/null 2>&1; then
    COMMIT=$(git rev-parse --short=7 HEAD)
    [ -z "$(git status --porcelain --untracked-files=no)" ] || DIRTY=1
    if describe=$(git describe --tags --abbrev=7 2>/dev/null); then
      describe=${describe#v}
      # 1.2.3-3-gabcdef1 -> 1.2.3+3.gabcdef1: after 1.2.3 for dpkg and semver alike (a "-" would be a pre-release)
      VERSION=$(echo "$describe" | sed -E 's/-([0-9]+)-(g[0-9a-f]+)$/+\1.\2/')
    else
      VERSION="$base+$COMMIT"
    fi
    if [ -n "$DIRTY" ]; then
      case $VERSION in *+*) VERSION="$VERSION.dirty" ;; *) VERSION="$VERSION+dirty" ;; esac
      COMMIT="$COMMIT-dirty"
    fi
    : "${SOURCE_DATE_EPOCH:=$(git log -1 --format=%ct HEAD)}"
  fi
  : "${SOURCE_DATE_EPOCH:=0}"
  export SOURCE_DATE_EPOCH
  DATE=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
}
# -X flags for the variables above (call version_vars first).
version_ldflags() {
  local pkg=github.com/loopforge/loopforge/backend/service
  echo "-X $pkg.Version=$VERSION -X $pkg.Commit=$COMMIT -X $pkg.Date=$DATE"
}
# Flags every build shares: no file-system paths and no VCS state in the binaries (the stamp above says
# which commit), so a binary depends only on the source and the toolchain.
GO_BUILD_FLAGS="-trimpath -buildvcs=false"
# Builds both binaries and the sandbox shim. wails build first: it also builds the frontend that
# $APP embeds. $APP is built without cgo, so `loopforge --version`, `run` or `serve` never load the
# ~170 shared libraries of GTK and WebKit; with no command on a display it executes $DESKTOP.
# The shim is what the sandbox re-executes for every run of generated code: ~20 ms cheaper than
# re-executing the app (it falls back to the app when absent).
# WAILS_BUILD_FLAGS: more flags for wails build (bench/startup.sh passes -s: reuse frontend/dist).
build_app() {
  version_vars || return
  local ld; ld=$(version_ldflags)
  # wails adds -buildvcs=false itself, and -s -w in its production mode.
  wails build -m -nosyncgomod -trimpath -ldflags "$ld" ${WAILS_BUILD_FLAGS:-} ${WAILS_TAGS:+-tags $WAILS_TAGS} || return
  wails_bindings_mode
  CGO_ENABLED=0 go build $GO_BUILD_FLAGS -ldflags "-s -w $ld" -o "$APP" . || return
  CGO_ENABLED=0 go build $GO_BUILD_FLAGS -o build/bin/loopforge-shim ./backend/sandbox/cmd/loopforge-shim
}
