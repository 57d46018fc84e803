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
