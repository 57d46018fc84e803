package cliproc

import (
	"context"
	"iter"
	"slices"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

// CLI is what an adapter tells NewBase about its CLI.
type CLI struct {
	// Name is the CLI's usual name, e.g. "claude": the profile name when the
	// profile has none, the executable looked up when it names none, and the
	// prefix of private workdirs.
	Name string
	// KeyEnv is the variable the profile's key (if it names api_key_env) is
	// passed in, also named in auth errors.
	KeyEnv      string
	OwnEnv      []string // the CLI's own variables a call inherits (see Env)
	InstallHint string   // how to install it, named when it is not found
	AuthHint    string   // what the user can do about a rejected key
	// NewSessions: the CLI files sessions under the path of its cwd and
	// accepts the id of a new one, so a call that starts a session picks its
	// id (Call.Session) and a private workdir is named after it.
	NewSessions bool
	// Explain: see Spec.Explain.
	Explain func(exitCode int, stderr string) (status int, msg string)
	// ConfigEnv, if set, names the variables the CLI's own configuration
	// says it reads (codex's env_key, for one): exact names or prefixes
	// ending in "*", passed on like OwnEnv. getenv reads the environment
	// the CLI gets (where its HOME and config directory are); args are the
	// profile's. It runs for every call, so edits of the config apply at
	// once.
	ConfigEnv func(getenv func(string) string, args []string) []string
	// Classify: see Spec.Classify.
	Classify func(provName, text string) error
}

// Call is one Stream call, ready for the adapter's command line.
type Call struct {
	Req    provider.Request
	Prompt string   // the request flattened (see Prompt)
	Dir    string   // the working directory
	Model  string   // the profile's model; "" leaves the choice to the CLI
	Args   []string // the profile's args, which go after the adapter's own
	// Session is the session to resume (Req.SessionID), or, for a CLI with
	// NewSessions, the id chosen for a new one (NewSession true); "" when
	// neither.
	Session    string
	NewSession bool
}

// Command is how the adapter runs its CLI for one call.
type Command struct {
	Args   []string // after the executable
	Stdin  string   // "" means /dev/null
	Parser Parser
}

// Base is the part of a coding CLI provider that is the same for every CLI:
// the profile's settings, Name, Capabilities, Check, and Stream up to the
// command line, which the adapter builds. An adapter's Client embeds it.
type Base struct {
	cli     CLI
	name    string
	model   string
	args    []string
	bin     Binary
	env     map[string]string // the profile's env
	passEnv []string          // the profile's pass_env
	set     map[string]string
	secret  string
	timeout time.Duration
	command func(Call) Command
}

// NewBase builds the shared part of a client for p. It starts no process and
// does not look for the executable yet (see Check). A profile that names
// api_key_env fails with provider.ErrMissingKey when that variable is empty;
// without api_key_env the CLI finds its own key or login. set holds the
// variables the adapter sets for a headless run (see Env); the profile's key
// is added to it as cli.KeyEnv. command builds each call's command line.
func NewBase(p provider.Profile, cli CLI, set map[string]string, command func(Call) Command) (*Base, error) {
	name := p.Name
	if name == "" {
		name = cli.Name
	}
	if p.APIKeyEnv != "" && p.APIKey == "" {
		return nil, &provider.Error{Kind: provider.KindMissingKey, Provider: name, EnvVar: p.APIKeyEnv}
	}
	if set == nil {
		set = map[string]string{}
	}
	if p.APIKeyEnv != "" {
		set[cli.KeyEnv] = p.APIKey
	}
	return &Base{
		cli:     cli,
		name:    name,
		model:   p.Model,
		args:    p.Args,
		bin:     Binary{Provider: name, Name: cli.Name, Profile: p.Binary, Hint: cli.InstallHint},
		env:     p.Env,
		passEnv: p.PassEnv,
		set:     set,
		secret:  p.APIKey,
		timeout: p.Timeout,
		command: command,
	}, nil
}

// Name is the profile name.
func (b *Base) Name() string { return b.name }

// Capabilities: sessions; no structured output (the loop asks for a fenced
// block).
func (b *Base) Capabilities() provider.Capabilities {
	return provider.Capabilities{Sessions: true}
}

// Check finds the executable and reports its version.
func (b *Base) Check(ctx context.Context) (string, error) {
	bin, err := b.bin.Find(ctx)
	if err != nil {
		return "", err
	}
	return Version(ctx, b.name, bin, b.environ())
}

// environ is the CLI's environment (see Env): its own variables, the
// profile's pass_env and the variables its configuration names.
func (b *Base) environ() []string {
	allowed := append(slices.Clone(b.cli.OwnEnv), b.passEnv...)
	env := Env(allowed, b.set, b.env)
	if b.cli.ConfigEnv == nil {
		return env
	}
	names := b.cli.ConfigEnv(Getenv(env), b.args)
	if len(names) == 0 {
		return env
	}
	return Env(append(allowed, names...), b.set, b.env)
}

// Stream runs the CLI once; see the adapter's package doc.
func (b *Base) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		prompt, err := Prompt(b.name, req)
		if err != nil {
			yield(provider.Delta{}, err)
			return
		}
		bin, err := b.bin.Find(ctx)
		if err != nil {
			yield(provider.Delta{}, err)
			return
		}
		call := Call{Req: req, Prompt: prompt, Model: b.model, Args: b.args, Session: req.SessionID}
		dirKey := "" // a fresh, random private workdir
		if b.cli.NewSessions {
			if call.Session == "" {
				call.Session, call.NewSession = NewSessionID(), true
			}
			dirKey = call.Session
		}
		wd, err := PrepareWorkdir(req.Workdir, b.cli.Name, dirKey)
		if err != nil {
			yield(provider.Delta{}, err)
			return
		}
		defer wd.Close()
		call.Dir = wd.Path

		cmd := b.command(call)
		timeout := req.Timeout
		if timeout <= 0 {
			timeout = b.timeout
		}
		env := b.environ()
		spec := Spec{
			Provider: b.name, Binary: bin, Args: cmd.Args, Dir: wd.Path, Env: env, Stdin: cmd.Stdin,
			Timeout: timeout, Model: b.model, KeyEnv: b.cli.KeyEnv, AuthHint: b.cli.AuthHint,
			Secrets: Secrets(env, b.secret), Explain: b.cli.Explain,
		}
		if b.cli.Classify != nil {
			spec.Classify = func(text string) error { return b.cli.Classify(b.name, text) }
		}
		for d, err := range Run(ctx, spec, cmd.Parser) {
			if !yield(d, err) {
				return
			}
		}
	}
}
