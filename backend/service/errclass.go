package service

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
)

// Class is what kind of failure an error is. Classify is the one place that
// decides it; each face turns a class into its own code (the CLI an exit
// code, the server an HTTP status), so the two never disagree.
type Class int

const (
	// ClassInternal: anything not classified below (a bug).
	ClassInternal Class = iota
	// ClassInvalid: the request, a flag or the configuration is wrong
	// (*config.Error, ErrInvalidRequest, an unknown provider name).
	ClassInvalid
	// ClassNotFound: no such session or run.
	ClassNotFound
	// ClassUnavailable: the thing exists but cannot give what was asked,
	// e.g. a script export of a run that produced no code, or a history file
	// that is damaged (*store.CorruptError) or whose disk is full
	// (*store.DiskFullError).
	ClassUnavailable
	// ClassProviderSetup: the provider cannot be used as set up on this
	// machine (no API key, a variable the CLI needs not passed, coding CLI
	// not installed). Nothing was sent.
	ClassProviderSetup
	// ClassProvider: the provider refused or failed a call.
	ClassProvider
	// ClassForbidden: the caller may not do this (a student asking for an
	// instructor's operation or setting, a wrong class code).
	ClassForbidden
	// ClassQuota: a class limit refuses it for now (*QuotaError).
	ClassQuota
	// ClassUnauthorized: the caller's credential is no longer valid (a
	// removed student).
	ClassUnauthorized
)

func (c Class) String() string {
	switch c {
	case ClassInvalid:
		return "invalid"
	case ClassNotFound:
		return "not_found"
	case ClassUnavailable:
		return "unavailable"
	case ClassProviderSetup:
		return "provider_setup"
	case ClassProvider:
		return "provider"
	case ClassForbidden:
		return "forbidden"
	case ClassQuota:
		return "quota"
	case ClassUnauthorized:
		return "unauthorized"
	}
	return "internal"
}

// Classify sorts err by the typed errors and sentinels it wraps; never by
// its text. The order matters: a missing key is a *provider.Error too.
func Classify(err error) Class {
	switch {
	case err == nil:
		return ClassInternal
	case errors.Is(err, store.ErrNotFound), errors.Is(err, ErrRunNotFound), errors.Is(err, export.ErrRunNotFound):
		return ClassNotFound
	case isAs[*config.Error](err), errors.Is(err, ErrInvalidRequest), errors.Is(err, provider.ErrUnknownProvider),
		errors.Is(err, loop.ErrInvalidSettings), errors.Is(err, provider.ErrNoModelList):
		return ClassInvalid
	case isAs[*QuotaError](err):
		return ClassQuota
	case errors.Is(err, ErrForbidden):
		return ClassForbidden
	case errors.Is(err, ErrNotAStudent):
		return ClassUnauthorized
	case errors.Is(err, export.ErrNoCode), errors.Is(err, export.ErrNotRunnable), errors.Is(err, ErrNoClass),
		errors.Is(err, ErrClassPaused), isAs[*store.CorruptError](err), isAs[*store.DiskFullError](err):
		return ClassUnavailable
	case errors.Is(err, provider.ErrMissingKey), errors.Is(err, provider.ErrMissingEnv), errors.Is(err, provider.ErrCLINotFound):
		return ClassProviderSetup
	case isAs[*provider.Error](err), isAs[*provider.ExecutionError](err), isAs[*provider.ParseError](err):
		return ClassProvider
	}
	return ClassInternal
}

func isAs[T error](err error) bool {
	_, ok := errors.AsType[T](err)
	return ok
}

// Code is the stable name of an error a user sees, e.g. "provider.auth".
// The faces send it with the error's English text and its parameters, and
// each frontend picks its own words by code (frontend/src/strings,
// errors.en.ts and errors.pt.ts), so a message is translated where it is
// shown and the backend never matches or rewrites text. A code is a
// contract: rename one only together with the frontend's tables.
type Code string

// The codes. A code's parameters are listed after it; every value is a
// string. Codes ending in a generic word (request.invalid, config.invalid,
// internal) carry the English detail as "detail", for the errors that have
// no words of their own yet.
const (
	CodeInternal Code = "internal" // detail

	CodeInvalid            Code = "request.invalid"              // detail
	CodePromptEmpty        Code = "request.prompt_empty"         //
	CodePromptTooLong      Code = "request.prompt_too_long"      // bytes, chars, max (bytes)
	CodeTooLarge           Code = "request.too_large"            // max (bytes): the server's body limit
	CodeMaxIterations      Code = "request.max_iterations"       // n, max
	CodeTimeout            Code = "request.timeout"              // value, max
	CodeLanguage           Code = "request.language"             // language
	CodeTests              Code = "request.tests"                // test (1-based; "0": the suite as a whole), detail
	CodeMode               Code = "request.mode"                 // mode
	CodeNeedsWorkspace     Code = "request.needs_workspace"      //
	CodeCompareTooFew      Code = "request.compare_too_few"      // n
	CodeCompareTwice       Code = "request.compare_twice"        // provider
	CodeCompareRerun       Code = "request.compare_rerun"        //
	CodeCompareSession     Code = "request.compare_session"      //
	CodeRetryRunning       Code = "request.retry_running"        //
	CodeRetryWorkspace     Code = "request.retry_workspace"      //
	CodeSettings           Code = "request.settings"             // detail
	CodeBadInput           Code = "request.bad_input"            // detail
	CodeNoEndpoint         Code = "request.no_endpoint"          // method, path
	CodeToken              Code = "request.token"                //
	CodeOrigin             Code = "request.origin"               //
	CodeConfig             Code = "config.invalid"               // detail
	CodeUnknownProvider    Code = "provider.unknown"             // provider
	CodeNotFound           Code = "not_found"                    //
	CodeRunNotFound        Code = "not_found.run"                // run
	CodeWorkdirEmpty       Code = "workdir.empty"                //
	CodeWorkdirMissing     Code = "workdir.missing"              // path
	CodeWorkdirNotFolder   Code = "workdir.not_folder"           // path
	CodeWorkdirUnreadable  Code = "workdir.unreadable"           // path, detail
	CodeWorkspaceNoDir     Code = "workspace.no_workdir"         //
	CodeWorkspaceNoEdit    Code = "workspace.cannot_edit"        // provider, kind
	CodeWorkspaceNotRepo   Code = "workspace.not_repo"           // detail
	CodeWorkspaceNoCommit  Code = "workspace.no_commit"          // dir
	CodeWorkspaceDirty     Code = "workspace.dirty"              // dir, changes
	CodeWorkspaceTampered  Code = "workspace.tampered"           // actor, files, dir
	CodeWorkspaceMoved     Code = "workspace.branch_moved"       // branch, head, dir
	CodeExportFormat       Code = "export.format"                // format
	CodeExportLang         Code = "export.lang"                  // lang
	CodeExportZone         Code = "export.tz"                    // tz
	CodeExportNoCode       Code = "export.no_code"               //
	CodeExportNotRunnable  Code = "export.not_runnable"          //
	CodeSandbox            Code = "sandbox.unavailable"          // detail
	CodeMissingKey         Code = "provider.missing_key"         // provider, env
	CodeMissingEnv         Code = "provider.missing_env"         // provider, env
	CodeCLINotFound        Code = "provider.cli_not_found"       // provider, binary, hint
	CodeCLIFailed          Code = "provider.cli_failed"          // provider, exit, message
	CodeCLIOutput          Code = "provider.cli_output"          // provider, line
	CodeProviderTimeout    Code = "provider.timeout"             // provider, phase, limit, key (phase "" when not one of loopforge's limits)
	CodeProviderAuth       Code = "provider.auth"                // provider, status, env, message
	CodeProviderForbidden  Code = "provider.forbidden"           // provider, model, status, message
	CodeProviderRateLimit  Code = "provider.rate_limit"          // provider, status, attempts, retry_after, message
	CodeProviderServer     Code = "provider.server"              // provider, status, attempts, message
	CodeProviderBadRequest Code = "provider.bad_request"         // provider, status, message
	CodeProviderUnreach    Code = "provider.unreachable"         // provider, url, attempts, message
	CodeProviderProtocol   Code = "provider.protocol"            // provider, message
	CodeProviderRefused    Code = "provider.refused"             // provider, category ("" when none), message (the provider's explanation)
	CodeProviderBroke      Code = "provider.interrupted"         // provider, url, received (characters of the answer that arrived), message
	CodeProviderTokenCap   Code = "provider.token_cap"           // provider, status, field, other ("" when none), value, unsupported ("true" or ""), message
	CodeNoModelList        Code = "provider.no_model_list"       // provider
	CodeModelNotFound      Code = "provider.model_not_found"     // provider, model, status, models (the models the key can use, ", "-separated; "" when they could not be listed), listed ("true" when they were), message
	CodeProviderOther      Code = "provider.error"               // provider, message
	CodeClassRefused       Code = "class.refused"                // detail (a class refusal with no code of its own: the server's English words)
	CodeStudentOnly        Code = "class.instructor_only"        // operation ("" when not one operation)
	CodeJoinRate           Code = "class.join_rate"              // seconds
	CodeClassPaused        Code = "class.paused"                 //
	CodeNoClass            Code = "class.none"                   //
	CodeClassOpen          Code = "class.already_open"           //
	CodeWrongCode          Code = "class.wrong_code"             //
	CodeNotAStudent        Code = "class.not_student"            //
	CodeStudentName        Code = "class.name"                   // max
	CodeLimitNegative      Code = "class.limit_negative"         //
	CodeBudgetWindow       Code = "class.budget_window"          // window
	CodeUnknownPreset      Code = "class.unknown_preset"         // preset
	CodeStudentModel       Code = "class.student.model"          //
	CodeStudentNetwork     Code = "class.student.network"        //
	CodeStudentWorkspace   Code = "class.student.workspace"      //
	CodeStudentTask        Code = "class.student.task"           //
	CodeStudentProvider    Code = "class.student.provider"       // provider
	CodeStudentPrompt      Code = "class.student.prompt"         // max_kib, size_kib
	CodeStudentTests       Code = "class.student.tests"          // max, count
	CodeStudentTestsSet    Code = "class.student.tests_assigned" //
	CodeAssignNoTests      Code = "class.assign.no_tests"        //
	CodeQuotaConcurrent    Code = "class.quota.concurrent"       // going, limit
	CodeQuotaHourly        Code = "class.quota.hourly"           // limit, retry_at (RFC 3339, UTC)
	CodeQuotaTokens        Code = "class.quota.tokens"           // limit
	CodeQuotaCost          Code = "class.quota.cost"             // limit (US dollars, two decimals: "0.50")
	CodeQuotaClassTokens   Code = "class.quota.class"            // limit
	CodeProviderElsewhere  Code = "class.provider_unavailable"   // (a provider not ready on the instructor's machine, as a student sees it)
	CodeCancelled          Code = "run.cancelled"                //
	CodeShutdown           Code = "run.shutdown"                 //
	CodeHistoryCorrupt     Code = "history.corrupt"              // path, damage (store.Damage*), backup ("" when none), detail (SQLite's words)
	CodeHistoryFull        Code = "history.disk_full"            // dir (the history's folder)
)

// IsProvider reports whether the code is a failure of the provider itself
// (what "The provider said:" may introduce), as opposed to loopforge's own
// refusals: a missing key or CLI, a sandbox, a request or a workspace.
func (c Code) IsProvider() bool {
	switch c {
	case CodeProviderAuth, CodeProviderForbidden, CodeProviderRateLimit, CodeProviderServer, CodeProviderBadRequest,
		CodeProviderUnreach, CodeProviderProtocol, CodeProviderOther, CodeProviderTimeout, CodeCLIFailed, CodeCLIOutput,
		CodeProviderRefused, CodeProviderBroke, CodeProviderTokenCap, CodeModelNotFound:
		return true
	}
	return false
}

// Retryable reports whether the code is a failure of the provider that
// trying the same request again may cure: an answer that broke off, a
// server error, a rate limit, a network failure, a time limit. The faces
// offer to try the iteration again for these (the frontend keeps the same
// list: frontend/src/strings/index.ts, retryCodes).
func (c Code) Retryable() bool {
	switch c {
	case CodeProviderBroke, CodeProviderServer, CodeProviderRateLimit, CodeProviderUnreach, CodeProviderTimeout:
		return true
	}
	return false
}

// Error is a failure that names its own code: the service's refusals, and
// any domain error wrapped where the code is known. Err keeps the English
// text and what errors.Is and errors.As look for (ErrInvalidRequest, the
// cause), so classes and exit codes do not change.
type Error struct {
	Code   Code
	Params map[string]string
	Err    error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// invalid is a refused request: ErrInvalidRequest with a code.
func invalid(code Code, params map[string]string, format string, a ...any) error {
	return &Error{Code: code, Params: params, Err: fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, a...))}
}

// Problem is an error as a face shows it: its class (an HTTP status, an
// exit code), its code and parameters (the words), and its English text.
type Problem struct {
	Class   Class
	Code    Code
	Params  map[string]string
	Message string // the first line of err.Error()
}

// Explain is Classify with words: the code and parameters of err, from the
// outermost *Error it wraps, else from the typed domain errors (never from
// its text).
func Explain(err error) Problem {
	p := Problem{Class: Classify(err), Params: map[string]string{}}
	if err == nil {
		p.Code = CodeInternal
		return p
	}
	p.Message, _, _ = strings.Cut(err.Error(), "\n")
	if e, ok := errors.AsType[*Error](err); ok {
		p.Code = e.Code
		maps.Copy(p.Params, e.Params)
		return p
	}
	p.Code = domainCode(err, p.Params)
	if p.Code == "" {
		p.Code = map[Class]Code{ClassInvalid: CodeInvalid, ClassProviderSetup: CodeProviderOther,
			ClassProvider: CodeProviderOther, ClassNotFound: CodeNotFound,
			ClassQuota: CodeClassRefused, ClassForbidden: CodeClassRefused, ClassUnauthorized: CodeClassRefused,
			ClassUnavailable: CodeClassRefused}[p.Class]
		if p.Code == "" {
			p.Code = CodeInternal
		}
		p.Params["detail"] = strings.TrimPrefix(p.Message, ErrInvalidRequest.Error()+": ")
	}
	return p
}

// domainCode names the typed errors of the other packages, filling params;
// "" when err is none of them. The kinds are tried in order: a provider's
// HTTP failure before the CLI errors it may wrap, a typed error before the
// sentinels.
func domainCode(err error, params map[string]string) Code {
	set := func(kv ...string) {
		for i := 0; i+1 < len(kv); i += 2 {
			params[kv[i]] = kv[i+1]
		}
	}
	for _, kind := range []func(error, func(...string)) Code{
		providerErrorCode, storeErrorCode, classErrorCode, cliErrorCode, gitErrorCode, sentinelCode, configErrorCode,
	} {
		if code := kind(err, set); code != "" {
			return code
		}
	}
	return ""
}

func providerErrorCode(err error, set func(...string)) Code {
	if pe, ok := errors.AsType[*provider.Error](err); ok {
		code := providerCode(pe, set)
		if code == CodeProviderBroke {
			received := 0
			if got := provider.PartialOf(err); got != nil {
				received = utf8.RuneCountInString(got.Content)
			}
			set("received", strconv.Itoa(received))
		}
		return code
	}
	if nl, ok := errors.AsType[*provider.NoModelListError](err); ok {
		set("provider", nl.Provider)
		return CodeNoModelList
	}
	if nf, ok := errors.AsType[*provider.NotFoundError](err); ok {
		set("provider", nf.Provider, "binary", nf.Binary, "hint", nf.Hint)
		return CodeCLINotFound
	}
	return ""
}

func storeErrorCode(err error, set func(...string)) Code {
	if ce, ok := errors.AsType[*store.CorruptError](err); ok {
		set("path", ce.Path, "damage", string(ce.Damage), "backup", ce.Backup, "detail", ce.Detail)
		return CodeHistoryCorrupt
	}
	if fe, ok := errors.AsType[*store.DiskFullError](err); ok {
		set("dir", fe.Dir)
		return CodeHistoryFull
	}
	return ""
}

func classErrorCode(err error, set func(...string)) Code {
	if q, ok := errors.AsType[*QuotaError](err); ok && q.Code != "" {
		for k, v := range q.Params {
			set(k, v)
		}
		return q.Code
	}
	switch {
	case errors.Is(err, ErrClassPaused):
		return CodeClassPaused
	case errors.Is(err, ErrNoClass):
		return CodeNoClass
	case errors.Is(err, ErrWrongCode):
		return CodeWrongCode
	case errors.Is(err, ErrNotAStudent):
		return CodeNotAStudent
	}
	return ""
}

func cliErrorCode(err error, set func(...string)) Code {
	if ee, ok := errors.AsType[*provider.ExecutionError](err); ok {
		set("provider", ee.Provider, "exit", strconv.Itoa(ee.ExitCode), "message", ee.Message)
		return CodeCLIFailed
	}
	if pe, ok := errors.AsType[*provider.ParseError](err); ok {
		set("provider", pe.Provider, "line", strconv.Itoa(pe.Line))
		return CodeCLIOutput
	}
	return ""
}

func gitErrorCode(err error, set func(...string)) Code {
	if te, ok := errors.AsType[*gitops.TamperError](err); ok {
		set("actor", te.Actor, "files", strings.Join(te.Changed, ", "), "dir", te.Dir)
		return CodeWorkspaceTampered
	}
	if be, ok := errors.AsType[*gitops.BranchMovedError](err); ok {
		set("branch", be.Branch, "head", be.Head, "dir", be.Dir)
		return CodeWorkspaceMoved
	}
	if de, ok := errors.AsType[*gitops.DirtyError](err); ok {
		set("dir", de.Dir, "changes", strings.Join(de.Changes, "; "))
		return CodeWorkspaceDirty
	}
	return ""
}

func sentinelCode(err error, set func(...string)) Code {
	switch {
	case errors.Is(err, ErrCancelled):
		return CodeCancelled
	case errors.Is(err, errShutdown):
		return CodeShutdown
	case errors.Is(err, ErrRunNotFound), errors.Is(err, export.ErrRunNotFound):
		return CodeRunNotFound
	case errors.Is(err, store.ErrNotFound):
		return CodeNotFound
	case errors.Is(err, export.ErrNoCode):
		return CodeExportNoCode
	case errors.Is(err, export.ErrNotRunnable):
		return CodeExportNotRunnable
	case errors.Is(err, loop.ErrInvalidSettings):
		set("detail", strings.TrimPrefix(firstLine(err), loop.ErrInvalidSettings.Error()+": "))
		return CodeSettings
	case errors.Is(err, gitops.ErrNotRepo):
		set("detail", firstLine(err))
		return CodeWorkspaceNotRepo
	}
	return ""
}

func configErrorCode(err error, set func(...string)) Code {
	if ce, ok := errors.AsType[*config.Error](err); ok {
		set("detail", firstLine(ce))
		return CodeConfig
	}
	return ""
}

// providerCode is the code of a provider's failure, by its kind.
func providerCode(e *provider.Error, set func(...string)) Code {
	status := ""
	if e.Status != 0 {
		status = strconv.Itoa(e.Status)
	}
	attempts := ""
	if e.Attempts > 1 {
		attempts = strconv.Itoa(e.Attempts)
	}
	set("provider", e.Provider, "message", e.Message)
	switch e.Kind {
	case provider.KindMissingKey:
		set("env", e.EnvVar)
		return CodeMissingKey
	case provider.KindMissingEnv:
		set("env", e.EnvVar)
		return CodeMissingEnv
	case provider.KindAuth:
		set("status", status, "env", e.EnvVar)
		return CodeProviderAuth
	case provider.KindForbidden:
		set("status", status, "model", e.Model)
		return CodeProviderForbidden
	case provider.KindRateLimit:
		retry := ""
		if e.RetryAfter > 0 {
			retry = e.RetryAfter.String()
		}
		set("status", status, "attempts", attempts, "retry_after", retry)
		return CodeProviderRateLimit
	case provider.KindServer:
		set("status", status, "attempts", attempts)
		return CodeProviderServer
	case provider.KindBadRequest:
		set("status", status)
		if fe, ok := errors.AsType[*provider.FieldError](e); ok {
			unsupported := ""
			if fe.Unsupported {
				unsupported = "true"
			}
			set("field", fe.Field, "other", fe.Other, "value", strconv.Itoa(fe.Value), "unsupported", unsupported)
			return CodeProviderTokenCap
		}
		return CodeProviderBadRequest
	case provider.KindRefusal:
		set("category", e.Category)
		return CodeProviderRefused
	case provider.KindModelNotFound:
		listed := ""
		if e.ListErr == nil && e.Available != nil {
			listed = "true"
		}
		set("status", status, "model", e.Model, "models", strings.Join(e.Available, ", "), "listed", listed)
		return CodeModelNotFound
	case provider.KindInterrupted:
		set("url", e.URL)
		return CodeProviderBroke
	case provider.KindUnreachable:
		set("url", e.URL, "attempts", attempts)
		return CodeProviderUnreach
	case provider.KindTimeout:
		set("phase", "", "limit", "", "key", "")
		if te, ok := errors.AsType[*provider.TimeoutError](e); ok {
			set("phase", string(te.Phase), "limit", te.Limit.String(), "key", te.Key())
		}
		return CodeProviderTimeout
	case provider.KindProtocol:
		return CodeProviderProtocol
	}
	return CodeProviderOther
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
