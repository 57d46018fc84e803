package wire

import (
	"encoding/base64"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/store"
)

// Conversions between the domain and the wire, one function per type and
// field by field, so that adding a field to a domain type does not put it
// on the wire unseen.

// each maps xs through f into a slice that is never nil (JSON [] not null).
func each[A, B any](xs []A, f func(A) B) []B {
	out := make([]B, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// ToService converts the request; the service checks it.
func (r CompareRequest) ToService() service.CompareRequest {
	return service.CompareRequest{RunRequest: r.Request, Providers: r.Providers}
}

// FromRunInfo converts a started run.
func FromRunInfo(i service.RunInfo) RunInfo {
	return RunInfo{RunID: i.RunID, SessionID: i.SessionID, Provider: i.Provider, Model: i.Model}
}

// FromCompareInfo converts a started comparison.
func FromCompareInfo(i service.CompareInfo) CompareInfo {
	return CompareInfo{SessionID: i.SessionID, Runs: each(i.Runs, FromRunInfo)}
}

// FromProviders converts the provider list.
func FromProviders(ps []service.ProviderStatus) []ProviderStatus { return each(ps, FromProvider) }

// FromProvider converts one provider's status.
func FromProvider(p service.ProviderStatus) ProviderStatus {
	return ProviderStatus{Name: p.Name, Kind: p.Kind, Model: p.Model, BaseURL: p.BaseURL, KeyEnv: p.KeyEnv,
		Version: p.Version, Default: p.Default, Available: p.Available,
		Reason: p.Reason, ReasonCode: string(p.ReasonCode), ReasonParams: p.ReasonParams,
		FirstByteTimeoutSeconds: p.FirstByteTimeoutSeconds, IdleTimeoutSeconds: p.IdleTimeoutSeconds,
		TimeoutSeconds: p.TimeoutSeconds, KeyRejected: fromKeyRejection(p.KeyRejected)}
}

func fromKeyRejection(k *service.KeyRejection) *KeyRejection {
	if k == nil {
		return nil
	}
	return &KeyRejection{At: k.At, Message: k.Message, Code: string(k.Code), Params: k.Params}
}

// FromPresets converts the prompt presets.
func FromPresets(ps []config.Preset) []Preset {
	return each(ps, func(p config.Preset) Preset {
		return Preset{ID: p.ID, Title: p.Title, Prompt: p.Prompt, Tests: p.Suite().YAML()}
	})
}

// FromDefaults converts the run settings.
func FromDefaults(d service.Defaults) Defaults {
	l := d.Limits
	return Defaults{Provider: d.Provider, MaxIterations: d.MaxIterations, MaxIterationsLimit: d.MaxIterationsLimit, Reflect: d.Reflect,
		TimeoutSeconds: d.TimeoutSeconds, Language: d.Language,
		Limits: SandboxLimits{MemoryBytes: l.MemoryBytes, Processes: l.Processes, OutputBytes: l.OutputBytes,
			FileSizeBytes: l.FileSizeBytes, OpenFiles: l.OpenFiles, CPUs: l.CPUs},
		Isolation: d.Isolation, NetworkIsolated: d.NetworkIsolated, CommandTimeoutSeconds: d.CommandTimeoutSeconds,
		CommandsSandboxed: d.CommandsSandboxed, MaxPromptBytes: d.MaxPromptBytes}
}

// FromSetup converts the first-run facts.
func FromSetup(s service.Setup) Setup {
	return Setup{OS: s.OS, ConfigDir: s.ConfigDir, EnvFile: s.EnvFile, EnvFileExists: s.EnvFileExists,
		ConfigFile: s.ConfigFile, CodeRuns: s.CodeRuns, PythonMissing: s.PythonMissing, Problem: s.Problem}
}

// FromSessions converts a page of the history.
func FromSessions(ss []store.SessionSummary) []SessionSummary {
	return each(ss, func(s store.SessionSummary) SessionSummary {
		return SessionSummary{ID: s.ID, Title: s.Title, Prompt: s.Prompt, Mode: s.Mode, Kind: string(s.Kind), Workdir: s.Workdir,
			CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Runs: each(s.Runs, fromRunBrief),
			ClassID: s.ClassID, StudentID: s.StudentID, StudentName: s.StudentName}
	})
}

func fromRunBrief(r store.RunBrief) RunBrief {
	return RunBrief{ID: r.ID, Provider: r.Provider, Status: r.Status, Iterations: r.Iterations}
}

// FromSessionDetail converts a session with its runs and iterations.
func FromSessionDetail(d *service.SessionDetail) SessionDetail {
	its := make(map[string][]StoredIteration, len(d.Iterations))
	for id, list := range d.Iterations {
		its[id] = each(list, FromIteration)
	}
	imgs := make(map[string][]StoredImage, len(d.Images))
	for id, list := range d.Images {
		imgs[id] = each(list, fromStoredImage)
	}
	return SessionDetail{ID: d.ID, Title: d.Title, Prompt: d.Prompt, Mode: d.Mode, Kind: string(d.Kind), Workdir: d.Workdir,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, Runs: each(d.Runs, FromRun), Iterations: its, Images: imgs}
}

// FromRun converts a stored run (its owning process stays private).
func FromRun(r store.Run) StoredRun {
	return StoredRun{ID: r.ID, SessionID: r.SessionID, Provider: r.Provider, Model: r.Model, Prompt: r.Prompt, Stdin: r.Stdin,
		Status: r.Status, MaxIterations: r.MaxIterations, Reflect: r.Reflect, Language: r.Language,
		Iterations: r.Iterations, FinalCode: r.FinalCode, Error: r.Error, ErrorCode: r.ErrorCode, ErrorParams: r.ErrorParams,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD, StartedAt: r.StartedAt,
		FinishedAt: r.FinishedAt, DurationMS: r.DurationMS, Tests: r.Tests, TestsPassed: r.TestsPassed, TestsTotal: r.TestsTotal}
}

// FromIteration converts a stored iteration.
func FromIteration(it store.Iteration) StoredIteration {
	return StoredIteration{RunID: it.RunID, N: it.N, Code: it.Code, Content: it.Content, ExecStatus: it.ExecStatus,
		ExitCode: it.ExitCode, Stdout: it.Stdout, Stderr: it.Stderr, Truncated: it.Truncated, ExecMS: it.ExecMS,
		Isolation: it.Isolation, Reflection: it.Reflection, Status: it.Status, Summary: it.Summary}
}

func fromStoredImage(im store.Image) StoredImage {
	return StoredImage{RunID: im.RunID, Iteration: im.Iteration, Name: im.Name, MIME: im.MIME, Width: im.Width, Height: im.Height, Size: im.Size}
}

// FromImage converts one stored picture with its bytes into a data: URL.
// Only the types the sandbox lets through are sent; anything else in a
// history (it cannot be there) goes as an empty picture.
func FromImage(im *store.Image) ImageData {
	d := ImageData{Name: im.Name, MIME: im.MIME, Width: im.Width, Height: im.Height}
	switch im.MIME {
	case "image/png", "image/jpeg", "image/gif", "image/svg+xml":
		d.DataURL = "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
	}
	return d
}

// FromComparison converts a comparison table.
func FromComparison(rows []service.ComparisonRow) []ComparisonRow {
	return each(rows, func(r service.ComparisonRow) ComparisonRow {
		return ComparisonRow{RunID: r.RunID, Provider: r.Provider, Model: r.Model, Status: r.Status,
			Iterations: r.Iterations, IterationsToSuccess: r.IterationsToSuccess, WallMS: r.WallMS,
			FirstTokenMS: r.FirstTokenMS, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
			CostUSD: r.CostUSD, LinesOfCode: r.LinesOfCode, FinalExitCode: r.FinalExitCode,
			TestsPassed: r.TestsPassed, TestsTotal: r.TestsTotal}
	})
}

// FromStats converts the history summary.
func FromStats(s service.Stats) Stats {
	return Stats{Total: fromStatsGroup(s.Total), Groups: each(s.Groups, fromStatsGroup)}
}

func fromStatsGroup(g service.StatsGroup) StatsGroup {
	return StatsGroup{Provider: g.Provider, Model: g.Model, Runs: g.Runs, Successes: g.Successes,
		Failures: g.Failures, Cancelled: g.Cancelled, ExecTimeouts: g.ExecTimeouts, SuccessRate: g.SuccessRate,
		AvgDurationMS: g.AvgMS, MedianDurationMS: g.MedianMS, AvgIterationsToSuccess: g.AvgIterationsToSuccess,
		InputTokens: g.InputTokens, OutputTokens: g.OutputTokens, CostUSD: g.CostUSD,
		TestedRuns: g.TestedRuns, TestsPassed: g.TestsPassed, TestsTotal: g.TestsTotal}
}

// FromFolderListing converts a folder picker listing.
func FromFolderListing(l service.FolderListing) FolderListing {
	return FolderListing{Path: l.Path, Parent: l.Parent,
		Folders: each(l.Folders, func(f service.Folder) Folder { return Folder{Name: f.Name, Path: f.Path} })}
}

// ErrorOf is the wire form of err, as service.Explain describes it.
func ErrorOf(err error) ErrorBody {
	return FromProblem(service.Explain(err))
}

// FromProblem is the wire form of an explained error.
func FromProblem(p service.Problem) ErrorBody {
	params := p.Params
	if params == nil {
		params = map[string]string{}
	}
	return ErrorBody{Error: p.Message, Code: string(p.Code), Params: params}
}
