// Package service wires config, providers, the loop, the sandbox and the
// store into the operations every face (CLI, web server, desktop bindings)
// uses.
//
// Runs: StartRun validates everything (provider, key, settings) before it
// writes anything, then runs the loop in a goroutine owned by the Service.
// Every event goes through the run's log in backend/journal: token deltas are
// handed to subscribers at once and written in batches (one transaction per
// ~30 ms), every other event is written, with the tokens before it, and only
// then handed to subscribers. Cancel stops a run (the sandbox kills the
// code's process group); Close cancels all runs and waits for them.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/journal"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/owner"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/anthropic"
	"github.com/loopforge/loopforge/backend/provider/claudecli"
	"github.com/loopforge/loopforge/backend/provider/codexcli"
	"github.com/loopforge/loopforge/backend/provider/gemini"
	"github.com/loopforge/loopforge/backend/provider/geminicli"
	"github.com/loopforge/loopforge/backend/provider/openai"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/store"
)

// ErrRunNotFound: no active or stored run has that id.
var ErrRunNotFound = errors.New("run not found")

// ErrInvalidRequest wraps problems with a RunRequest (exit code 2 at the CLI).
var ErrInvalidRequest = errors.New("invalid request")

// DefaultRegistry builds every provider kind loopforge ships.
func DefaultRegistry() provider.Registry {
	return provider.Registry{
		config.KindOpenAI:    openai.New,
		config.KindAnthropic: anthropic.New,
		config.KindGeminiAPI: gemini.New,
		config.KindCodex:     codexcli.New,
		config.KindClaude:    claudecli.New,
		config.KindGemini:    geminicli.New,
	}
}

// Options for New. Only Config is required.
type Options struct {
	Config   *config.Config
	Registry provider.Registry // default DefaultRegistry()
	Executor loop.Executor     // default: a sandbox.Runner
	Logger   *slog.Logger
	// Reload reads the configuration again, as the face first read it (the
	// same workdir and environment), for Service.Reload. nil: the
	// configuration given stays (tests that make theirs in code).
	Reload func() (*config.Config, error)
	// TokenWindow is how long a run's token events may wait to be written
	// together, in one transaction (they reach subscribers at once): 0 means
	// journal.DefaultWindow; a negative value writes each token before it is
	// published, one transaction each.
	TokenWindow time.Duration
}

// Service is the one backend the faces share.
type Service struct {
	// cfg is the configuration in force: Reload replaces it as a whole, and
	// what reads several of its fields takes one snapshot (conf).
	cfg     atomic.Pointer[config.Config]
	reload  func() (*config.Config, error) // Options.Reload
	reg     provider.Registry
	store   *store.Store
	log     *slog.Logger
	wg      sync.WaitGroup
	closing chan struct{} // closed by Close: subscriptions stop
	mu      sync.Mutex
	runs    map[string]*activeRun
	// finished keeps the last few ended runs so Wait can still return their
	// typed error (the store keeps only its text).
	finished      map[string]*activeRun
	finishedOrder []string
	workdir       workdir
	// owner marks the runs this process executes, so other loopforge
	// processes sharing the history leave them alone (see recoverOrphans).
	owner *owner.Claim
	// ownersDir holds every process's owner claim (next to the database).
	ownersDir string
	keys      keyHealth // providers whose key was just rejected
	// class is the open class of `loopforge class` (nil otherwise).
	class  *classroom
	probes probes // the provider list's recent checks
	// repeats are the repeated comparisons started from the app.
	repeats repeatJobs
	// journal holds the runs' event logs.
	journal *journal.Journal
	// unstored holds the ends of this process's runs that the history could
	// not store when they ended (a full disk), by run ID: storeEnds stores
	// them once a write succeeds again. Guarded by mu.
	unstored map[string]store.Ending

	// exec runs generated code. It is made on first need (see executor):
	// the sandbox probes the host for it, and most commands never run code.
	// execMu guards the four fields below.
	execMu   sync.Mutex
	exec     loop.Executor
	execErr  error  // why no executor could be made (python missing)
	isolated string // exec's isolation level
	// netIsolated: exec keeps runs off the network unless they allow it
	// (false on Windows and macOS, where nothing does).
	netIsolated bool
	execTried   bool // made, or failed (Reload lets a failure be tried again)
	execEnded   bool // Close: no executor is made any more
}

// New opens the history (the executor comes on first need). Runs left unfinished by a
// process that is gone are marked interrupted; runs of other live loopforge
// processes sharing the history are left alone.
func New(ctx context.Context, o Options) (*Service, error) {
	if o.Config == nil {
		return nil, errors.New("service: no config")
	}
	s := &Service{reg: o.Registry, reload: o.Reload, exec: o.Executor, log: o.Logger, runs: map[string]*activeRun{}, finished: map[string]*activeRun{}, closing: make(chan struct{})}
	s.cfg.Store(o.Config)
	s.execTried = o.Executor != nil
	if s.reg == nil {
		s.reg = DefaultRegistry()
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	st, err := store.Open(ctx, o.Config.DBPath)
	if err != nil {
		return nil, fmt.Errorf("opening the history: %w", err)
	}
	s.store = st
	s.journal = journal.New(st, journal.Options{Window: o.TokenWindow})
	s.ownersDir = filepath.Join(filepath.Dir(o.Config.DBPath), "owners")
	if s.owner, err = owner.New(s.ownersDir); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("opening the history: %w", err)
	}
	if err := s.recoverOrphans(ctx); err != nil {
		_ = s.owner.Release()
		_ = st.Close()
		return nil, err
	}
	s.wg.Add(1)
	go func() { // in the background: a full $TMPDIR must not delay a start
		defer s.wg.Done()
		s.removeLeftovers()
	}()
	return s, nil
}

// removeLeftovers removes the temp dirs that the runs of loopforge
// processes since killed left in $TMPDIR (sandbox.RemoveLeftovers): those
// tagged with an owner of this history whose claim is gone.
func (s *Service) removeLeftovers() {
	n, err := sandbox.RemoveLeftovers("", func(tag string) (bool, error) {
		ours, alive, err := owner.TagAlive(s.ownersDir, tag)
		return ours && err == nil && !alive, err
	})
	if err != nil {
		s.log.Warn("removing what killed loopforge processes left in the temp dir", "err", err)
	}
	if n > 0 {
		s.log.Info("removed the temp dirs of loopforge processes that were killed", "count", n)
	}
}

// zygoteUse is which runs are forked from the sandbox's zygote
// (sandbox.Options.Zygote) by LOOPFORGE_ZYGOTE: by default a class's runs,
// whose bursts need the throughput (classruns.go asks for it); "1" every
// run; "0" none.
func zygoteUse(env string) sandbox.ZygoteUse {
	switch env {
	case "0":
		return sandbox.ZygoteOff
	case "1":
		return sandbox.ZygoteAll
	}
	return sandbox.ZygoteAsked
}

// executor makes the sandbox runner on first need: a run, a comparison,
// or a form asking which isolation runs would get (Defaults). The host probe
// it needs is cached on disk (sandbox.ProbeCached in the config's CacheDir).
func (s *Service) executor() (loop.Executor, error) {
	s.execMu.Lock()
	defer s.execMu.Unlock()
	if !s.execTried {
		s.execTried = true
		r, err := sandbox.NewRunner(sandbox.Options{CacheDir: s.conf().CacheDir, Owner: s.owner.Tag(),
			Zygote: zygoteUse(os.Getenv("LOOPFORGE_ZYGOTE"))})
		if err != nil {
			s.execErr = err
		} else {
			s.exec, s.isolated, s.netIsolated = r, r.Isolation(), r.NetworkIsolated()
		}
	}
	return s.exec, s.execErr
}

// isolation is the sandbox level generated code runs under, making the
// executor if needed; "" and the reason when code cannot run at all.
// netIsolated says whether it keeps runs off the network.
func (s *Service) isolation() (level string, netIsolated bool, err error) {
	if _, err := s.executor(); err != nil {
		return "", false, err
	}
	s.execMu.Lock()
	defer s.execMu.Unlock()
	return s.isolated, s.netIsolated, nil
}

// retryExecutor lets the next executor call try again after a failure
// (Python installed since); a working executor is kept.
func (s *Service) retryExecutor() {
	s.execMu.Lock()
	defer s.execMu.Unlock()
	if s.exec == nil && s.execErr != nil && !s.execEnded {
		s.execTried, s.execErr = false, nil
	}
}

// recoverOrphans marks interrupted the runs still recorded as running whose
// owner process is gone (killed, crashed, or a release that predates owners).
// It is cheap when nothing is running (one indexed query), so the views of
// the history call it too: a desktop window left open sees a terminal run
// that was killed end, without a restart.
func (s *Service) recoverOrphans(ctx context.Context) error {
	owners, err := s.store.RunningOwners(ctx)
	if err != nil {
		return err
	}
	var gone []string
	for _, o := range owners {
		alive, err := owner.Alive(s.ownersDir, o)
		if err != nil {
			s.log.Warn("checking a run's owner", "owner", o, "err", err)
			continue // unknown: leave its runs alone
		}
		if !alive {
			gone = append(gone, o)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	n, err := s.store.MarkInterrupted(ctx, gone, s.recordedEnds())
	if err != nil {
		return err
	}
	s.dropEndsOfEnded(ctx)
	if n > 0 {
		s.log.Info("runs of loopforge processes that stopped were marked interrupted", "count", n)
	}
	return nil
}

// Close cancels active runs, waits for them to record their end, and closes
// the history.
func (s *Service) Close() error {
	s.mu.Lock()
	for _, r := range s.runs {
		r.cancel(errShutdown)
	}
	s.mu.Unlock()
	close(s.closing)
	s.wg.Wait()
	s.journal.Close() // every run has closed its log: no write starts any more
	// The executor removes ended runs' directories and cgroups in the
	// background (sandbox.Runner.Wait). execEnded keeps a late caller from
	// making one.
	s.execMu.Lock()
	s.execTried, s.execEnded = true, true
	exec := s.exec
	s.execMu.Unlock()
	if c, ok := exec.(interface{ Close() }); ok {
		c.Close() // the sandbox's zygote, if a class started one (else it ends with the process)
	}
	if w, ok := exec.(interface{ Wait() }); ok {
		w.Wait()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s.storeEnds(ctx) // a last try; else the next start stores them
	cancel()
	// The store closes first: once the claim is released, another process
	// may recover this one's runs, and every run has recorded its end by now.
	return errors.Join(s.store.Close(), s.owner.Release())
}

var errShutdown = errors.New("loopforge is shutting down")

// ErrCancelled is the cause recorded when a user cancels a run.
var ErrCancelled = errors.New("cancelled by the user")

// Config returns the configuration the service was built with.
func (s *Service) Config() *config.Config { return s.conf() }

// conf is the configuration in force (see Reload).
func (s *Service) conf() *config.Config { return s.cfg.Load() }

// RunInfo identifies a started run.
type RunInfo struct {
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
}

// Profile resolves a profile name ("" = default) with overrides applied.
func (s *Service) Profile(name, model, baseURL string) (provider.Profile, error) {
	cfg := s.conf()
	if name == "" {
		n, err := cfg.DefaultProvider()
		if err != nil {
			return provider.Profile{}, err
		}
		name = n
	}
	p, err := cfg.Profile(name)
	if err != nil {
		return provider.Profile{}, &Error{Code: CodeUnknownProvider, Params: map[string]string{"provider": name}, Err: err}
	}
	if model != "" {
		p.Model = model
	}
	if baseURL != "" {
		if err := config.CheckBaseURL(baseURL); err != nil {
			return provider.Profile{}, err
		}
		p.BaseURL = baseURL
	}
	return p, nil
}

// StartRun validates req, records a run and starts its loop.
func (s *Service) StartRun(ctx context.Context, req RunRequest) (RunInfo, error) {
	var resume []provider.Message
	if req.Retry != "" {
		var err error
		if resume, err = s.retry(ctx, &req); err != nil {
			return RunInfo{}, err
		}
	}
	ticket, err := s.admit(ctx, &req, nil)
	if err != nil {
		return RunInfo{}, err
	}
	defer ticket.done()
	p, err := s.prepare(ctx, req, req.Provider)
	if err != nil {
		return RunInfo{}, err
	}
	p.class = ticket
	var history []provider.Message
	var sess *store.Session
	if req.SessionID != "" {
		sess, err = s.store.GetSession(ctx, req.SessionID)
		if err != nil {
			return RunInfo{}, err
		}
		if sess.Mode == event.SessionModeCompare && p.set.Workspace != nil {
			// Its providers each had a worktree; a run here would edit the
			// user's checkout on a branch another provider may share.
			return RunInfo{}, invalid(CodeCompareRerun, nil, "a provider of a workspace comparison cannot be re-run in that session; start a new comparison")
		}
		if resume != nil {
			history = resume
		} else if from := threadRun(sess, sess.Runs, p.prof.Name); from != nil && !req.Fresh {
			if history, err = s.threadOf(ctx, from.ID); err != nil {
				return RunInfo{}, err
			}
		}
	} else {
		sess = &store.Session{Title: title(req.Prompt), Prompt: req.Prompt, Mode: event.SessionModeScript, Kind: event.ModeScript, Workdir: s.Workdir()}
		if p.set.Mode == provider.ModeWorkspace {
			sess.Mode, sess.Kind, sess.Workdir = event.SessionModeWorkspace, event.ModeWorkspace, p.set.Workdir
		}
		ticket.session(sess)
		if err := s.store.CreateSession(ctx, sess); err != nil {
			return RunInfo{}, err
		}
	}
	in := loop.Input{Prompt: req.Prompt, History: history}
	if resume != nil {
		in.Resume = true
		if in.Reflection, err = s.pendingReflection(ctx, req.Retry); err != nil {
			return RunInfo{}, err
		}
	}
	return s.launch(ctx, sess, p, in)
}

// pendingReflection is the reflection the last request of run went with:
// that of the iteration before the last, when the last one did not end (its
// answer broke off); "" otherwise.
func (s *Service) pendingReflection(ctx context.Context, runID string) (string, error) {
	const page = 1000
	var (
		text     string
		from, it int // the reflection's iteration, the last iteration
		ended    bool
	)
	for after := int64(0); ; {
		evs, err := s.store.EventsAfter(ctx, runID, after, page)
		if err != nil {
			return "", err
		}
		for _, e := range evs {
			after = e.Seq
			switch e.Type {
			case event.IterationStarted:
				var p event.IterationPayload
				_ = e.Decode(&p)
				it, ended = p.Iteration, false
			case event.IterationDone:
				ended = true
			case event.Reflection:
				var p event.ReflectionPayload
				_ = e.Decode(&p)
				text, from = p.Text, p.Iteration
			}
		}
		if len(evs) < page {
			break
		}
	}
	if from == it-1 && !ended {
		return text, nil
	}
	return "", nil
}

// retry fills req in to try the run req.Retry again (see RunRequest.Retry)
// and returns the thread to go on with: the run's own, without an answer
// it may end with (so the question is asked again); or, for a run that
// stored none (its process went away), the thread it started from and its
// prompt.
func (s *Service) retry(ctx context.Context, req *RunRequest) ([]provider.Message, error) {
	if err := s.checkRun(ctx, req.Retry); err != nil {
		return nil, err
	}
	run, err := s.store.GetRun(ctx, req.Retry)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrRunNotFound, req.Retry)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case run.Status == event.RunStatusRunning:
		return nil, invalid(CodeRetryRunning, nil, "run %s is still running", run.ID)
	case run.Language == export.LanguageDiff:
		// A workspace run's thread holds no tool calls to go on with.
		return nil, invalid(CodeRetryWorkspace, nil, "a workspace run cannot be tried again from where it stopped; start the task again")
	}
	thread, err := s.threadOf(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	for len(thread) > 0 && thread[len(thread)-1].Role != provider.RoleUser {
		thread = thread[:len(thread)-1]
	}
	if len(thread) == 0 {
		if thread, err = s.threadBefore(ctx, run); err != nil {
			return nil, err
		}
		thread = append(thread, provider.Message{Role: provider.RoleUser, Content: run.Prompt})
	}
	req.SessionID, req.Prompt, req.Fresh = run.SessionID, run.Prompt, false
	if req.Provider == "" || req.Provider == run.Provider {
		// The same provider: its model too, when the run named another
		// than the profile's.
		req.Provider = run.Provider
		if prof, err := s.conf().Profile(run.Provider); req.Model == "" && err == nil && prof.Model != run.Model {
			req.Model = run.Model
		}
	}
	if req.MaxIterations == 0 {
		req.MaxIterations = max(run.MaxIterations-max(run.Iterations-1, 0), 1)
	}
	if req.Reflect == nil {
		req.Reflect = &run.Reflect
	}
	if req.Language == "" {
		req.Language = run.Language
	}
	if req.Stdin == "" {
		req.Stdin = run.Stdin
	}
	if req.Tests == "" {
		req.Tests = run.Tests
	}
	return thread, nil
}

// threadOf is a run's stored thread.
func (s *Service) threadOf(ctx context.Context, runID string) ([]provider.Message, error) {
	msgs, err := s.store.ListMessages(ctx, runID)
	if err != nil {
		return nil, err
	}
	thread := make([]provider.Message, 0, len(msgs))
	for _, m := range msgs {
		thread = append(thread, provider.Message{Role: provider.Role(m.Role), Content: m.Content})
	}
	return thread, nil
}

// threadBefore is the thread run started from: that of the run before it
// in its session (in a comparison, before it on its provider), if any.
func (s *Service) threadBefore(ctx context.Context, run *store.Run) ([]provider.Message, error) {
	sess, err := s.store.GetSession(ctx, run.SessionID)
	if err != nil {
		return nil, err
	}
	for i, r := range sess.Runs {
		if r.ID == run.ID {
			if from := threadRun(sess, sess.Runs[:i], run.Provider); from != nil {
				return s.threadOf(ctx, from.ID)
			}
			return nil, nil
		}
	}
	return nil, nil
}

// threadRun is the run among runs (sess's, in start order) whose thread a
// follow-up on providerName goes on with: the latest one; in a comparison,
// the latest of that provider, since each provider of a comparison keeps
// its own thread (another's answers are not its to continue). nil: none, a
// new thread.
func threadRun(sess *store.Session, runs []store.Run, providerName string) *store.Run {
	for i := len(runs) - 1; i >= 0; i-- {
		if sess.Mode != event.SessionModeCompare || runs[i].Provider == providerName {
			return &runs[i]
		}
	}
	return nil
}

// CompareRequest runs one prompt on several providers at once; the other
// fields apply to every run. With RunRequest.SessionID it continues that
// comparison: each provider goes on with its own thread there (a provider
// new to it starts one), as a follow-up typed on the comparison.
type CompareRequest struct {
	RunRequest
	Providers []string
}

// CompareInfo identifies a started comparison: one session, one run per
// provider, in the order asked.
type CompareInfo struct {
	SessionID string    `json:"session_id"`
	Runs      []RunInfo `json:"runs"`
}

// StartCompare validates every provider first (nothing starts if one is
// unusable), then starts one loop per provider, each in its own goroutine so
// a slow or failing provider never holds the others back.
func (s *Service) StartCompare(ctx context.Context, req CompareRequest) (CompareInfo, error) {
	if len(req.Providers) < 2 {
		return CompareInfo{}, invalid(CodeCompareTooFew, map[string]string{"n": strconv.Itoa(len(req.Providers))}, "a comparison needs at least two providers (got %d)", len(req.Providers))
	}
	ticket, err := s.admit(ctx, &req.RunRequest, req.Providers)
	if err != nil {
		return CompareInfo{}, err
	}
	defer ticket.done()
	seen := map[string]bool{}
	var preps []prepared
	for _, name := range req.Providers {
		if seen[name] {
			return CompareInfo{}, invalid(CodeCompareTwice, map[string]string{"provider": name}, "provider %q is listed twice", name)
		}
		seen[name] = true
		p, err := s.prepare(ctx, req.RunRequest, name)
		if err != nil {
			return CompareInfo{}, err
		}
		p.class = ticket
		preps = append(preps, p)
	}
	if req.SessionID != "" {
		return s.continueCompare(ctx, req, preps)
	}
	sess := &store.Session{Title: title(req.Prompt), Prompt: req.Prompt, Mode: event.SessionModeCompare, Kind: event.ModeScript, Workdir: s.Workdir()}
	if preps[0].set.Workspace != nil {
		sess.Kind, sess.Workdir = event.ModeWorkspace, preps[0].set.Workdir
	}
	ticket.session(sess)
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return CompareInfo{}, err
	}
	// In workspace mode each provider edits its own git worktree.
	for i := range preps {
		if preps[i].set.Workspace == nil {
			continue
		}
		wt, err := s.addWorktree(ctx, sess, preps[i].prof.Name, &preps[i].set)
		if err != nil {
			for _, p := range preps[:i] {
				p.wt.discard(ctx)
			}
			_ = s.store.DeleteSession(ctx, sess.ID)
			return CompareInfo{}, err
		}
		preps[i].wt = wt
	}
	info := CompareInfo{SessionID: sess.ID}
	for i, p := range preps {
		ri, err := s.launch(ctx, sess, p, loop.Input{Prompt: req.Prompt})
		if err != nil {
			for _, started := range info.Runs {
				_ = s.Cancel(started.RunID)
			}
			for _, p := range preps[i:] {
				p.wt.discard(ctx)
			}
			return CompareInfo{}, err
		}
		info.Runs = append(info.Runs, ri)
	}
	return info, nil
}

// continueCompare starts a follow-up on the comparison req.SessionID: one
// run per prepared provider, each given its own thread in that session.
// Every thread is read before the first run starts, so a refusal starts
// nothing.
func (s *Service) continueCompare(ctx context.Context, req CompareRequest, preps []prepared) (CompareInfo, error) {
	sess, err := s.store.GetSession(ctx, req.SessionID)
	if err != nil {
		return CompareInfo{}, err
	}
	if sess.Mode != event.SessionModeCompare {
		return CompareInfo{}, invalid(CodeCompareSession, nil, "session %s is not a comparison: continue it with one provider", sess.ID)
	}
	if sess.Kind == event.ModeWorkspace || preps[0].set.Workspace != nil {
		// Each provider had a worktree of its own, now committed or kept.
		return CompareInfo{}, invalid(CodeCompareRerun, nil, "a provider of a workspace comparison cannot be re-run in that session; start a new comparison")
	}
	threads := make([][]provider.Message, len(preps))
	for i, p := range preps {
		if from := threadRun(sess, sess.Runs, p.prof.Name); from != nil {
			if threads[i], err = s.threadOf(ctx, from.ID); err != nil {
				return CompareInfo{}, err
			}
		}
	}
	info := CompareInfo{SessionID: sess.ID}
	for i, p := range preps {
		ri, err := s.launch(ctx, sess, p, loop.Input{Prompt: req.Prompt, History: threads[i]})
		if err != nil {
			for _, started := range info.Runs {
				_ = s.Cancel(started.RunID)
			}
			return CompareInfo{}, err
		}
		info.Runs = append(info.Runs, ri)
	}
	return info, nil
}

// prepared is a validated request for one provider, ready to launch.
type prepared struct {
	auditor string // the auditor's profile name (workspace mode)
	class   *classTicket
	wt      *worktree // a workspace comparison's own worktree
	prof    provider.Profile
	model   provider.Provider
	set     loop.Settings
	lang    loop.Language
}

// prepare checks everything that can be checked before a run is recorded:
// the request's options (settings), then the provider, the sandbox and the
// workspace.
func (s *Service) prepare(ctx context.Context, req RunRequest, providerName string) (prepared, error) {
	if req.Task != nil && strings.TrimSpace(req.Prompt) == "" {
		req.Prompt = req.Task.Instructions
	}
	set, lang, err := settings(s.conf(), req)
	if err != nil {
		return prepared{}, err
	}
	// The request's own mistakes (a bad base URL) first: they are the
	// user's to fix whatever the machine lacks.
	prof, err := s.Profile(providerName, req.Model, req.BaseURL)
	if err != nil {
		return prepared{}, err
	}
	if _, err := s.executor(); err != nil && req.Mode != event.ModeWorkspace {
		return prepared{}, &Error{Code: CodeSandbox, Params: map[string]string{"detail": firstLine(err)}, Err: fmt.Errorf("cannot run generated code: %w", err)}
	}
	model, err := s.reg.New(prof)
	if err != nil {
		return prepared{}, err
	}
	// A coding CLI that is not installed fails here, before anything is
	// recorded; other check failures (an odd --version) are left to the run.
	if c, ok := model.(checker); ok {
		cctx, cancel := context.WithTimeout(ctx, checkTimeout)
		_, err := c.Check(cctx)
		cancel()
		if errors.Is(err, provider.ErrCLINotFound) {
			return prepared{}, err
		}
	}
	model = s.watch(prof, model)
	if err := s.prepareWorkspace(ctx, req, prof, model, &set); err != nil {
		return prepared{}, err
	}
	p := prepared{prof: prof, model: model, set: set, lang: lang}
	if set.Workspace != nil && set.Workspace.Auditor != nil {
		p.auditor = req.Auditor
	}
	return p, nil
}

// launch records a run of in's task in sess and starts its goroutine.
func (s *Service) launch(ctx context.Context, sess *store.Session, p prepared, in loop.Input) (RunInfo, error) {
	prompt := in.Prompt
	run := &store.Run{SessionID: sess.ID, Provider: p.prof.Name, Model: p.prof.Model, Prompt: prompt, Status: event.RunStatusRunning,
		Owner: s.owner.ID(), MaxIterations: p.set.MaxIterations, Reflect: p.set.Reflect, Language: p.lang.Fence, Stdin: p.set.Stdin,
		Tests: p.set.Tests.YAML()}
	if p.set.Workspace != nil {
		run.Language = export.LanguageDiff // its result is the patch it made
	}
	if err := s.store.CreateRun(ctx, run); err != nil {
		return RunInfo{}, err
	}
	s.reserveEnd(run.ID)
	runCtx, cancel := context.WithCancelCause(context.Background())
	ar := s.newActiveRun(run.ID, cancel)
	p.class.register(ar, run)
	s.mu.Lock()
	s.runs[run.ID] = ar
	s.mu.Unlock()
	if err := s.emitNow(ar, event.New(event.RunStarted, event.RunStartedPayload{
		SessionID: sess.ID, Provider: p.prof.Name, Model: p.prof.Model, Prompt: prompt,
		MaxIterations: p.set.MaxIterations, Reflect: p.set.Reflect, Language: p.lang.Fence, Mode: runMode(p.set),
		AllowNetwork: p.set.AllowNetwork, Stdin: p.set.Stdin, Workdir: p.set.Workdir, Validate: validateOf(p.set), Auditor: p.auditor,
		Tests: testsCount(p.set.Tests), HiddenTests: p.set.Tests.Hidden(),
	})); err != nil {
		cancel(err)
		s.finish(ar, run, loop.Outcome{Status: event.RunStatusError, Err: err}, time.Now())
		return RunInfo{}, err
	}
	for _, n := range p.class.budgetNotices(p.set.MaxIterations) {
		if err := s.emit(ar, event.New(event.Log, n)); err != nil {
			cancel(err)
			s.finish(ar, run, loop.Outcome{Status: event.RunStatusError, Err: err}, time.Now())
			return RunInfo{}, err
		}
	}
	if p.wt != nil {
		if err := s.emit(ar, event.New(event.Git, event.GitPayload{Action: "worktree", Branch: p.wt.branch, Path: p.wt.path})); err != nil {
			cancel(err)
			s.finish(ar, run, loop.Outcome{Status: event.RunStatusError, Err: err}, time.Now())
			return RunInfo{}, err
		}
	}
	s.wg.Add(1)
	set := withBranch(p.set, sess)
	if set.Workspace == nil {
		set.Images = runImages{store: s.store, runID: run.ID}
	}
	set.Log = s.log.With("run", run.ID)
	go s.execute(runCtx, ar, run, p.class.metered(ar, p.model), set, in, p.wt)
	return RunInfo{RunID: run.ID, SessionID: sess.ID, Provider: p.prof.Name, Model: p.prof.Model}, nil
}

// execute owns one run's goroutine: it runs the loop, then records the end.
func (s *Service) execute(ctx context.Context, ar *activeRun, run *store.Run, m loop.Model, set loop.Settings, in loop.Input, wt *worktree) {
	defer s.wg.Done()
	start := time.Now()
	var out loop.Outcome
	func() {
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("run panicked", "run", run.ID, "panic", v)
				out = loop.Outcome{Status: event.RunStatusError, Err: fmt.Errorf("internal error: %v", v)}
			}
		}()
		out = loop.Run(ctx, m, s.executorFor(ar), func(e event.Event) error {
			err := s.emit(ar, e)
			s.observe(ar, e)
			return err
		}, set, in)
	}()
	if wt != nil {
		// A fresh context: a cancelled run's worktree is still tidied.
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		notice := wt.finish(cctx, out.Status == event.RunStatusSuccess)
		cancel()
		_ = s.emit(ar, event.New(event.Log, notice))
	}
	s.finish(ar, run, out, start)
}

// finish records the outcome (with a fresh context: a cancelled run must
// still be saved), emits run_finished and releases the run.
func (s *Service) finish(ar *activeRun, run *store.Run, out loop.Outcome, start time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer func() {
		s.mu.Lock()
		delete(s.runs, ar.id)
		s.finished[ar.id] = ar
		s.finishedOrder = append(s.finishedOrder, ar.id)
		if len(s.finishedOrder) > keepFinished {
			delete(s.finished, s.finishedOrder[0])
			s.finishedOrder = s.finishedOrder[1:]
		}
		s.mu.Unlock()
		ar.cancel(nil)
		s.closeRun(ar)
	}()

	status, errorKind, quota := quotaStatus(out)
	if !quota {
		errorKind = loop.ErrorKind(out.Err)
	}
	if out.Status == event.RunStatusCancelled && errors.Is(out.Err, errShutdown) {
		status = event.RunStatusInterrupted
	}
	now := time.Now().UTC()
	run.Status, run.Iterations, run.FinalCode = status, out.Iterations, out.FinalCode
	run.InputTokens, run.OutputTokens, run.CostUSD = out.Usage.InputTokens, out.Usage.OutputTokens, out.Usage.CostUSD
	if out.Model != "" {
		// The provider answered from a fallback model: the history keeps
		// the model that wrote the answer (run_started and the fallback
		// notice keep the one asked for).
		run.Model = out.Model
	}
	run.FinishedAt, run.DurationMS = &now, time.Since(start).Milliseconds()
	if out.Tests != nil {
		run.TestsPassed, run.TestsTotal = out.Tests.Passed, out.Tests.Total
	}
	if out.Err != nil {
		setRunError(run, out.Err)
	}
	thread := make([]store.Message, len(out.Messages))
	for i, m := range out.Messages {
		thread[i] = store.Message{RunID: run.ID, Role: string(m.Role), Content: m.Content}
	}
	if err := s.store.AppendMessages(ctx, thread); err != nil {
		s.log.Error("saving the message thread", "run", run.ID, "err", err)
	}
	saveErr := s.store.UpdateRun(ctx, run)
	if saveErr != nil {
		s.log.Error("saving the run's end", "run", run.ID, "err", saveErr)
		if out.Err == nil {
			// The run went well but the history cannot keep it: that is
			// what the user must hear, and what the record will say.
			out.Err, status = saveErr, event.RunStatusError
			run.Status = status
			setRunError(run, saveErr)
		}
	}
	ar.setResult(run, out.Err)
	s.classFinished(ar, run)
	if err := s.emit(ar, event.New(event.RunFinished, event.RunFinishedPayload{
		Status: status, Iterations: out.Iterations, FinalCode: out.FinalCode, Error: run.Error, ErrorKind: errorKind,
		ErrorCode: run.ErrorCode, ErrorParams: run.ErrorParams, Model: out.Model,
		InputTokens: out.Usage.InputTokens, OutputTokens: out.Usage.OutputTokens, DurationMS: run.DurationMS,
		TestsPassed: run.TestsPassed, TestsTotal: run.TestsTotal,
	})); err != nil {
		s.log.Error("recording run_finished", "run", run.ID, "err", err)
	}
	if saveErr == nil {
		s.dropEnd(run.ID)
		s.storeEnds(ctx) // space is back: store the ends kept aside
		return
	}
	// The history still has the run as running: keep its real end beside
	// it for the next start to store (see ends.go).
	seq := ar.events.Seq() // run_finished's: this goroutine is the run's last emitter
	end := store.Ending{Seq: seq, Status: status, Error: run.Error, ErrorCode: run.ErrorCode, ErrorParams: run.ErrorParams}
	if err := s.recordEnd(run.ID, end); err != nil {
		s.log.Error("recording the run's end beside the history", "run", run.ID, "err", err)
	}
	s.mu.Lock()
	if s.unstored == nil {
		s.unstored = map[string]store.Ending{}
	}
	s.unstored[run.ID] = end
	s.mu.Unlock()
}

// setRunError sets the error fields of run from err. A full disk is told in
// its own whole words: the layers it came through only repeat it.
func setRunError(run *store.Run, err error) {
	p := Explain(err)
	run.Error, run.ErrorCode, run.ErrorParams = err.Error(), string(p.Code), p.Params
	if de, ok := errors.AsType[*store.DiskFullError](err); ok {
		run.Error = de.Error()
	}
}

// keepFinished bounds Service.finished.
const keepFinished = 256

// Cancel stops an active run. Cancelling a finished run is not an error.
func (s *Service) Cancel(runID string) error {
	s.mu.Lock()
	ar := s.runs[runID]
	s.mu.Unlock()
	if ar != nil {
		ar.cancel(ErrCancelled)
		return nil
	}
	if _, err := s.store.GetRun(context.Background(), runID); err != nil {
		return fmt.Errorf("cancel %s: %w", runID, ErrRunNotFound)
	}
	return nil
}

// Wait blocks until the run ends and returns its record and, for runs that
// ended in error, the error with its type intact (for exit codes).
func (s *Service) Wait(ctx context.Context, runID string) (*store.Run, error) {
	s.mu.Lock()
	ar := s.runs[runID]
	if ar == nil {
		ar = s.finished[runID]
	}
	s.mu.Unlock()
	if ar != nil {
		select {
		case <-ar.done:
			return ar.result()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r, err := s.store.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func title(prompt string) string {
	line := strings.TrimSpace(prompt)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if r := []rune(line); len(r) > 80 {
		line = string(r[:79]) + "…"
	}
	return line
}

// testsCount is how many tests judge a run (0: none).
func testsCount(s *judge.Suite) int {
	if s.Empty() {
		return 0
	}
	return len(s.Cases)
}

// TestsError is a suite that cannot be used, as the request's mistake.
func TestsError(err error) error {
	params := map[string]string{"detail": err.Error()}
	if je, ok := errors.AsType[*judge.Error](err); ok {
		params = map[string]string{"test": strconv.Itoa(je.Test), "detail": je.Msg}
	}
	return &Error{Code: CodeTests, Params: params, Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err)}
}
