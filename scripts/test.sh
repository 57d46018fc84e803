#!/usr/bin/env bash
# `make test`: set up what is missing, then run the whole suite:
# frontend type-check + lint + unit tests + build, go vet, golangci-lint (for
# Linux, Windows and macOS), go test -race, then the end-to-end tests in
# headless Chromium against a freshly built binary.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
WITH_BROWSER=1 bash scripts/setup.sh   # chromium for the end-to-end tests
. scripts/env.sh
(cd frontend && npm run check && npm run lint && npm run build)   # also creates frontend/dist for go:embed
go vet ./...
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './frontend/*'))
[ -z "$unformatted" ] || { echo "gofmt would change: $unformatted" >&2; exit 1; }
# .golangci.yml says which linters run and why some findings are excluded. Each OS compiles other
# files (*_windows.go, *_darwin.go, //go:build unix): lint the code each of them builds. `unused`
# judges the Linux build only: shared files hold helpers that only Linux calls, and the other OSes
# keep empty stand-ins (procgroup's sysGroup on macOS).
golangci-lint run ./...
for goos in windows darwin; do
  echo "golangci-lint: GOOS=$goos"
  GOOS=$goos CGO_ENABLED=0 golangci-lint run --disable unused ./...
done
go test -race -count=1 ./...
# The desktop facade is only compiled with the desktop tags; check it binds every operation.
go test -count=1 -tags bindings -run TestAppBindsEveryOperation .
go build -o build/bin/loopforge-e2e . && (cd frontend && LOOPFORGE_BIN=../build/bin/loopforge-e2e npm run e2e)
echo "make test: all checks passed in $((SECONDS - t0))s"
