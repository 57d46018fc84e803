.PHONY: setup run dev build test ci
setup: ; bash scripts/setup.sh
run:   ; bash scripts/run.sh
build: ; bash scripts/setup.sh && . scripts/env.sh && build_app
dev:   ; bash scripts/setup.sh && . scripts/env.sh && { wails dev -m -nosyncgomod $${WAILS_TAGS:+-tags $$WAILS_TAGS}; rc=$$?; wails_bindings_mode; exit $$rc; }
test:  ; bash scripts/test.sh
ci:    ; bash .ci/run
# Real codex/claude/gemini CLIs from npm against a fake model server (not part of `make test`).
.PHONY: test-clis
test-clis: ; bash scripts/test-clis.sh
# Versioned artifacts for Linux, Windows and macOS with SHA256SUMS in build/release (scripts/release.sh);
# release-check builds them twice and compares; install-test installs the .deb on a fresh Debian 12 root.
.PHONY: release release-check install-test install-test-windows
release:       ; bash scripts/release.sh
release-check: ; bash scripts/release-check.sh
install-test:  ; bash scripts/install-test.sh
install-test-windows: ; bash scripts/install-test-windows.sh
