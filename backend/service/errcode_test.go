package service

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"maps"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
)

// TestExplainNamesEveryKindOfError: the code and parameters come from the
// error's type (wrapped or not), never from its text, and the English text
// is kept whole for the faces that show it as it is.
func TestExplainNamesEveryKindOfError(t *testing.T) {
	tests := []struct {
		err    error
		code   Code
		params map[string]string // those that must be there (others may be)
	}{
		{errors.New("disk full"), CodeInternal, map[string]string{"detail": "disk full"}},
		{fmt.Errorf("%w: something new", ErrInvalidRequest), CodeInvalid, map[string]string{"detail": "something new"}},
		{invalid(CodePromptEmpty, nil, "the prompt is empty"), CodePromptEmpty, nil},
		{fmt.Errorf("start: %w", invalid(CodeCompareTwice, map[string]string{"provider": "a"}, "twice")), CodeCompareTwice, map[string]string{"provider": "a"}},
		{&config.Error{File: "loopforge.yml", Msg: "invalid YAML"}, CodeConfig, map[string]string{"detail": "loopforge.yml: invalid YAML"}},
		{fmt.Errorf("%w: the prompt is empty", loop.ErrInvalidSettings), CodeSettings, map[string]string{"detail": "the prompt is empty"}},
		{fmt.Errorf("get: %w", store.ErrNotFound), CodeNotFound, nil},
		{fmt.Errorf("cancel: %w", ErrRunNotFound), CodeRunNotFound, nil},
		{fmt.Errorf("export: %w", export.ErrRunNotFound), CodeRunNotFound, nil},
		{fmt.Errorf("export: %w", export.ErrNoCode), CodeExportNoCode, nil},
		{fmt.Errorf("export: %w", export.ErrNotRunnable), CodeExportNotRunnable, nil},
		{ErrCancelled, CodeCancelled, nil},
		{fmt.Errorf("run: %w", errShutdown), CodeShutdown, nil},
		{&provider.Error{Kind: provider.KindMissingKey, Provider: "openai", EnvVar: "OPENAI_API_KEY"}, CodeMissingKey,
			map[string]string{"provider": "openai", "env": "OPENAI_API_KEY"}},
		{&provider.Error{Kind: provider.KindMissingEnv, Provider: "codex", EnvVar: "AZURE_KEY"}, CodeMissingEnv,
			map[string]string{"provider": "codex", "env": "AZURE_KEY"}},
		{&provider.NotFoundError{Provider: "codex", Binary: "codex", Hint: "npm install -g @openai/codex"}, CodeCLINotFound,
			map[string]string{"provider": "codex", "binary": "codex", "hint": "npm install -g @openai/codex"}},
		{fmt.Errorf("iteration 1: generate: %w", &provider.Error{Kind: provider.KindAuth, Provider: "openai", Status: 401, EnvVar: "OPENAI_API_KEY", Message: "Incorrect API key"}),
			CodeProviderAuth, map[string]string{"provider": "openai", "status": "401", "env": "OPENAI_API_KEY", "message": "Incorrect API key"}},
		{&provider.Error{Kind: provider.KindForbidden, Provider: "gemini-api", Status: 403, Model: "gemini-x"}, CodeProviderForbidden,
			map[string]string{"provider": "gemini-api", "model": "gemini-x", "status": "403"}},
		{fmt.Errorf("generate: %w", &provider.Error{Kind: provider.KindModelNotFound, Provider: "openai", Status: 404, Model: "gpt-old",
			Available: []string{"gpt-a", "gpt-b"}, Message: "The model `gpt-old` does not exist"}), CodeModelNotFound,
			map[string]string{"provider": "openai", "model": "gpt-old", "status": "404", "models": "gpt-a, gpt-b", "listed": "true",
				"message": "The model `gpt-old` does not exist"}},
		{&provider.Error{Kind: provider.KindModelNotFound, Provider: "openai", Status: 404, Model: "gpt-old", ListErr: errors.New("down")},
			CodeModelNotFound, map[string]string{"model": "gpt-old", "models": "", "listed": ""}},
		{&provider.NoModelListError{Provider: "claude"}, CodeNoModelList, map[string]string{"provider": "claude"}},
		{&provider.Error{Kind: provider.KindRateLimit, Provider: "p", Status: 429, Attempts: 3, RetryAfter: 20 * time.Second}, CodeProviderRateLimit,
			map[string]string{"attempts": "3", "retry_after": "20s"}},
		{&provider.Error{Kind: provider.KindServer, Provider: "p", Status: 503}, CodeProviderServer, map[string]string{"status": "503"}},
		{&provider.Error{Kind: provider.KindBadRequest, Provider: "p", Status: 400, Message: "unknown model"}, CodeProviderBadRequest,
			map[string]string{"message": "unknown model"}},
		{&provider.Error{Kind: provider.KindUnreachable, Provider: "ollama", URL: "http://localhost:11434/v1"}, CodeProviderUnreach,
			map[string]string{"url": "http://localhost:11434/v1"}},
		{&provider.Error{Kind: provider.KindTimeout, Provider: "p", Err: &provider.TimeoutError{Provider: "p", Phase: provider.PhaseIdle, Limit: time.Minute}},
			CodeProviderTimeout, map[string]string{"phase": "idle", "limit": "1m0s", "key": "idle_timeout"}},
		{&provider.Error{Kind: provider.KindProtocol, Provider: "p"}, CodeProviderProtocol, map[string]string{"provider": "p"}},
		{provider.WithPartial(&provider.Error{Kind: provider.KindRefusal, Provider: "claude", Category: "cyber", Message: "Declined under the Usage Policy."},
			&provider.Response{Usage: provider.Usage{InputTokens: 18}}), CodeProviderRefused,
			map[string]string{"provider": "claude", "category": "cyber", "message": "Declined under the Usage Policy."}},
		{fmt.Errorf("generate: %w", provider.WithPartial(&provider.Error{Kind: provider.KindInterrupted, Provider: "ollama", URL: "http://localhost:11434/v1",
			Message: "connection closed mid-response"}, &provider.Response{Content: "Aqui está ✓"})), CodeProviderBroke,
			map[string]string{"provider": "ollama", "url": "http://localhost:11434/v1", "received": "11", "message": "connection closed mid-response"}},
		{&provider.Error{Kind: provider.KindInterrupted, Provider: "p", URL: "http://x/v1"}, CodeProviderBroke, map[string]string{"received": "0"}},
		{&provider.Error{Kind: provider.KindBadRequest, Provider: "azure", Status: 400, Message: "Unsupported parameter: 'max_tokens'",
			Err: &provider.FieldError{Profile: "azure", Field: "max_tokens", Other: "max_completion_tokens", Unsupported: true, Value: 4096}},
			CodeProviderTokenCap, map[string]string{"provider": "azure", "status": "400", "field": "max_tokens", "other": "max_completion_tokens",
				"value": "4096", "unsupported": "true"}},
		{&provider.PartialError{Err: &provider.ExecutionError{Provider: "codex", ExitCode: 1, Message: "boom"}}, CodeCLIFailed,
			map[string]string{"provider": "codex", "exit": "1", "message": "boom"}},
		{&provider.ParseError{Provider: "codex", Line: 3}, CodeCLIOutput, map[string]string{"line": "3"}},
		{&gitops.TamperError{Dir: "/p", Actor: "the model", Changed: []string{".git/config"}}, CodeWorkspaceTampered,
			map[string]string{"files": ".git/config", "dir": "/p", "actor": "the model"}},
		{&gitops.BranchMovedError{Dir: "/p", Branch: "loopforge/x", Head: "main"}, CodeWorkspaceMoved,
			map[string]string{"branch": "loopforge/x", "head": "main"}},
		{fmt.Errorf("%w: %w", ErrInvalidRequest, &gitops.DirtyError{Dir: "/p", Changes: []string{" M a.py"}}), CodeWorkspaceDirty,
			map[string]string{"dir": "/p", "changes": " M a.py"}},
		{fmt.Errorf("opening the history: %w", &store.CorruptError{Path: "/h/history.db", Damage: store.DamageCheckFailed,
			Backup: "/h/backups/history-x.db", Detail: "quick_check: page 9"}), CodeHistoryCorrupt,
			map[string]string{"path": "/h/history.db", "damage": "check_failed", "backup": "/h/backups/history-x.db", "detail": "quick_check: page 9"}},
		{fmt.Errorf("recording generated: store: append 3 events: %w", &store.DiskFullError{Dir: "/h", Err: syscall.ENOSPC}),
			CodeHistoryFull, map[string]string{"dir": "/h"}},
	}
	for _, tt := range tests {
		p := Explain(tt.err)
		if p.Code != tt.code || p.Message != firstLine(tt.err) || p.Class != Classify(tt.err) {
			t.Errorf("Explain(%v) = %+v, want code %s, the error's first line and its class", tt.err, p, tt.code)
			continue
		}
		for k, v := range tt.params {
			if got, ok := p.Params[k]; !ok || got != v {
				t.Errorf("Explain(%v).Params[%q] = %q, want %q (all: %v)", tt.err, k, got, v, p.Params)
			}
		}
	}
}

// TestCodeIsProviderOnlyForTheProvidersOwnFailures: "The provider said:"
// must not introduce loopforge's own refusals.
func TestCodeIsProviderOnlyForTheProvidersOwnFailures(t *testing.T) {
	for _, c := range []Code{CodeProviderAuth, CodeProviderRateLimit, CodeProviderServer, CodeCLIFailed, CodeProviderTimeout,
		CodeProviderRefused, CodeProviderBroke, CodeProviderTokenCap} {
		if !c.IsProvider() {
			t.Errorf("%s is the provider's", c)
		}
	}
	for _, c := range []Code{CodeMissingKey, CodeCLINotFound, CodeSandbox, CodeSettings, CodeConfig, CodeWorkspaceTampered, CodeInternal, CodeCancelled} {
		if c.IsProvider() {
			t.Errorf("%s is loopforge's, not the provider's", c)
		}
	}
}

// TestRefusedRequestsCarryTheirCode: the service's own refusals name their
// code and parameters, keep their class and their English text.
func TestRefusedRequestsCarryTheirCode(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	ctx := context.Background()
	tests := []struct {
		name   string
		call   func() error
		code   Code
		params map[string]string
	}{
		{"empty prompt", func() error { _, err := svc.StartRun(ctx, RunRequest{Prompt: "  ", Provider: "fake"}); return err },
			CodePromptEmpty, map[string]string{}},
		{"iterations", func() error {
			_, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "fake", MaxIterations: 51})
			return err
		}, CodeMaxIterations, map[string]string{"n": "51", "max": "50"}},
		{"unknown provider", func() error { _, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "skynet"}); return err },
			CodeUnknownProvider, map[string]string{"provider": "skynet"}},
		{"language", func() error {
			_, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "fake", Language: "cobol"})
			return err
		}, CodeLanguage, map[string]string{"language": "cobol"}},
		{"one provider", func() error {
			_, err := svc.StartCompare(ctx, CompareRequest{RunRequest: RunRequest{Prompt: "x"}, Providers: []string{"fake"}})
			return err
		}, CodeCompareTooFew, map[string]string{"n": "1"}},
		{"missing folder", func() error { _, err := svc.SetWorkdir("/no/such/folder"); return err },
			CodeWorkdirMissing, map[string]string{"path": "/no/such/folder"}},
		{"export format", func() error { _, _, err := svc.Export(ctx, "s", "docx", "", "", ""); return err },
			CodeExportFormat, map[string]string{"format": "docx"}},
		{"export zone", func() error { _, _, err := svc.Export(ctx, "s", "md", "", "pt", "Mars/Olympus"); return err },
			CodeExportZone, map[string]string{"tz": "Mars/Olympus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			p := Explain(err)
			if err == nil || p.Class != ClassInvalid || p.Code != tt.code || !maps.Equal(p.Params, tt.params) {
				t.Fatalf("err %v → %+v; want class invalid, code %s, params %v", err, p, tt.code, tt.params)
			}
		})
	}
}

// TestAFailedRunKeepsItsErrorCode: run_finished and the stored run (what
// the history shows later) carry the code and parameters of the error.
func TestAFailedRunKeepsItsErrorCode(t *testing.T) {
	fake := &fakeOpenAI{}
	fake.reject.Store(true)
	svc, _ := openAIService(t, fake)
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "openai", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Wait(ctx, info.RunID); !errors.Is(err, provider.ErrAuth) {
		t.Fatalf("want an auth failure, got %v", err)
	}
	d, err := svc.Session(ctx, info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Runs[0]
	if r.ErrorCode != string(CodeProviderAuth) || r.ErrorParams["provider"] != "openai" || r.ErrorParams["env"] != "OPENAI_API_KEY" {
		t.Fatalf("stored run: code %q params %v", r.ErrorCode, r.ErrorParams)
	}
	evs := collect(t, svc, info.RunID, 0)
	var fin event.RunFinishedPayload
	if err := evs[len(evs)-1].Decode(&fin); err != nil {
		t.Fatal(err)
	}
	if fin.ErrorCode != string(CodeProviderAuth) || !maps.Equal(fin.ErrorParams, r.ErrorParams) || fin.Error != r.Error {
		t.Fatalf("run_finished: %+v; stored %q %v", fin, r.ErrorCode, r.ErrorParams)
	}
}

// TestFrontendWordsEveryCode: the frontend's error words (frontend/src/strings,
// in English and Portuguese) have words for every code the backend
// sends: service.Code and the loop's format codes.
func TestFrontendWordsEveryCode(t *testing.T) {
	codes := map[string]bool{}
	for _, f := range []string{"errclass.go", "../loop/extract.go"} {
		file, err := parser.ParseFile(gotoken.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Values) != 1 {
				return true
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != gotoken.STRING {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); (ok && id.Name == "Code") || strings.HasPrefix(vs.Names[0].Name, "Format") {
				codes[strings.Trim(lit.Value, `"`)] = true
			}
			return true
		})
	}
	if len(codes) < 50 {
		t.Fatalf("found %d codes: the parse no longer finds them", len(codes))
	}
	// Each language's words: errors.en.ts and errors.pt.ts the general ones
	// (one table, keys at two spaces), class.ts the classroom's and tests.ts
	// the tests' (spread into them: an "errors: {" table per language,
	// English first, keys at four spaces).
	have := []map[string]bool{{}, {}}
	add := func(i int, table, indent string) {
		key := regexp.MustCompile(`(?m)^` + indent + `'?([a-z_.]+)'?:`)
		for _, m := range key.FindAllStringSubmatch(table, -1) {
			if have[i][m[1]] {
				t.Errorf("table %d words %s twice", i, m[1])
			}
			have[i][m[1]] = true
		}
	}
	for i, f := range []string{"errors.en.ts", "errors.pt.ts"} {
		add(i, errorsTable(t, f), "  ")
	}
	for _, f := range []string{"class.ts", "tests.ts"} {
		src, err := os.ReadFile(stringsDir + f)
		if err != nil {
			t.Fatal(err)
		}
		tables := regexp.MustCompile(`(?s)\n  errors: \{\n(.*?)\n  \}`).FindAllStringSubmatch(string(src), -1)
		if len(tables) != 2 {
			t.Fatalf("found %d errors tables in %s, want 2 (en, pt)", len(tables), f)
		}
		for i, tab := range tables {
			add(i, tab[1], "    ")
		}
	}
	for i := range have {
		for c := range codes {
			if !have[i][c] {
				t.Errorf("table %d (errors.*.ts + class.ts + tests.ts) has no words for %s", i, c)
			}
		}
		for c := range have[i] {
			if !codes[c] {
				t.Errorf("table %d (errors.*.ts + class.ts + tests.ts) words %s, which the backend never sends", i, c)
			}
		}
	}
}

// TestFrontendSortsCodesAsTheBackendDoes: strings/index.ts keeps its own lists
// of the provider's failures (providerCodes: "The provider said:") and of
// those worth trying again (retryCodes: "Try this iteration again"); each
// must be Code.IsProvider's and Code.Retryable's.
func TestFrontendSortsCodesAsTheBackendDoes(t *testing.T) {
	src, err := os.ReadFile(stringsDir + "index.ts")
	if err != nil {
		t.Fatal(err)
	}
	set := func(name string) map[string]bool {
		m := regexp.MustCompile(`(?s)const ` + name + ` = new Set\(\[(.*?)\]\)`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("no %s in strings/index.ts", name)
		}
		out := map[string]bool{}
		for _, q := range regexp.MustCompile(`'([a-z_.]+)'`).FindAllSubmatch(m[1], -1) {
			out[string(q[1])] = true
		}
		return out
	}
	provider, retry := set("providerCodes"), set("retryCodes")
	table := errorsTable(t, "errors.en.ts")
	codes := regexp.MustCompile(`(?m)^  '?([a-z_.]+)'?:`).FindAllSubmatch([]byte(table), -1)
	if len(codes) < 50 {
		t.Fatalf("found %d codes: the parse no longer finds them", len(codes))
	}
	for _, m := range codes {
		c := Code(m[1])
		if c.IsProvider() != provider[string(c)] {
			t.Errorf("%s: IsProvider %v, in providerCodes %v", c, c.IsProvider(), provider[string(c)])
		}
		if c.Retryable() != retry[string(c)] {
			t.Errorf("%s: Retryable %v, in retryCodes %v", c, c.Retryable(), retry[string(c)])
		}
	}
}

// stringsDir holds the frontend's string tables.
const stringsDir = "../../frontend/src/strings/"

// errorsTable is the body of the one error-words table of f (errors.en.ts,
// errors.pt.ts): "export const errors… = {" to the "}" that closes it.
func errorsTable(t *testing.T, f string) string {
	t.Helper()
	src, err := os.ReadFile(stringsDir + f)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\nexport const errors[A-Za-z]+:[^\n]*= \{\n(.*?)\n\}`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("no errors table in %s", f)
	}
	return string(m[1])
}
