// Package cli is the command-line face of loopforge: `run`, `sessions`,
// `providers`, `serve`, and (with no command) the desktop window.
//
// Errors reach the user as one line on stderr, never a stack trace, and map
// to exit codes: 0 success, 1 the loop ended without success, 2 usage or
// configuration error, 3 provider error (auth, network, missing key).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/store"
	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitProvider    = 3
	ExitInterrupted = 130
)

// Faces carries what only package main can provide: the embedded frontend and
// the desktop window (which needs Wails and cgo).
//
// loopforge is built twice from the same package main: the CLI build (plain
// `go build`, no cgo) maps no GUI library and starts like any Go tool; the
// desktop build (`wails build`, named DesktopName) links GTK and WebKit. The
// CLI build has no Desktop: run with no command on a display, it replaces
// itself with the desktop build found next to its executable.
type Faces struct {
	Assets fs.FS
	// Desktop opens the window in this process (the desktop build only).
	Desktop func(*service.Service, fs.FS) error
	// WindowCheck, when set, says whether Desktop can open its window here;
	// an error wrapping ErrNoWindow sends the user to the web UI instead.
	WindowCheck func() error
	// BindingsOnly: this build only generates the Wails bindings; the
	// desktop face runs with no service and needs no display.
	BindingsOnly bool
}

// ErrNoWindow: the desktop build cannot open its window on this display.
var ErrNoWindow = errors.New("no window can open here")

// DesktopName is the file name of the desktop build, looked for next to the
// CLI build's executable (desktopFile: with ".exe" on Windows).
const DesktopName = "loopforge-desktop"

// desktopExecVar marks a process the CLI build started as the desktop build:
// if that one has no desktop either, it says so instead of looping.
const desktopExecVar = "LOOPFORGE_DESKTOP_EXEC"

// env is what commands share: streams and the faces. Tests build their own.
type env struct {
	faces Faces
	// execed: this process was started by the CLI build as the desktop build.
	execed bool
	// self and exec find and replace this process's executable
	// (os.Executable, execProcess); tests replace them.
	self   func() (string, error)
	exec   func(path string, argv, envv []string) error
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// newService opens the backend; tests may replace it.
	newService func(ctx context.Context, workdir string) (*service.Service, error)
	// serveAddr replaces DefaultAddr as serve's default (tests hold a port of their own).
	serveAddr string
	// openBrowser opens the web UI's URL where no window can open (nil =
	// openURL, the system's default browser; see browser.go).
	openBrowser func(url string) error
}

// usageError marks command-line mistakes: an invalid request, so exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Is makes a usage error classify as service.ErrInvalidRequest.
func (e *usageError) Is(target error) bool { return target == service.ErrInvalidRequest }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// exitError carries a specific exit code for an error already reported.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Main runs the CLI and returns the process exit code.
func Main(args []string, faces Faces) int {
	e := &env{faces: faces, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, self: os.Executable, exec: execProcess}
	e.newService = defaultService
	// Not inherited by what this process starts (generated code, other tools).
	e.execed = os.Getenv(desktopExecVar) != ""
	_ = os.Unsetenv(desktopExecVar)
	return e.main(context.Background(), args)
}

func (e *env) main(ctx context.Context, args []string) int {
	setupLogging(e.stderr)
	root := e.rootCmd()
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	msg := err.Error()
	if ce, ok := errors.AsType[*store.CorruptError](err); ok {
		// Its words are whole and name the file; the prefixes of the layers
		// it came through ("opening the history: store: open …") only repeat it.
		msg = ce.Error()
	}
	if fe, ok := errors.AsType[*store.DiskFullError](err); ok {
		msg = fe.Error() // the same: whole words that name the folder
	}
	fmt.Fprintln(e.stderr, "loopforge: "+oneLine(msg))
	return exitCode(err)
}

// exitCodes turns service.Classify's verdict into the documented exit codes.
var exitCodes = map[service.Class]int{
	service.ClassInternal:      ExitFailed,
	service.ClassInvalid:       ExitUsage,
	service.ClassNotFound:      ExitUsage,
	service.ClassUnavailable:   ExitFailed,
	service.ClassProviderSetup: ExitProvider,
	service.ClassProvider:      ExitProvider,
}

func exitCode(err error) int { return exitCodes[service.Classify(err)] }

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// setupLogging sends warnings to stderr (LOOPFORGE_LOG=info|debug for more).
func setupLogging(w io.Writer) {
	slog.SetDefault(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: logLevel(slog.LevelWarn)})))
}

func logLevel(def slog.Level) slog.Level {
	switch strings.ToLower(os.Getenv("LOOPFORGE_LOG")) {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	}
	return def
}

// logToFile adds dir/loopforge.log (info and up) for the long-running faces,
// where stderr is often not seen. It returns a func that closes the file.
func logToFile(stderr io.Writer, dir string) func() {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		slog.Warn("cannot create the log directory", "dir", dir, "err", err)
		return func() {}
	}
	f, err := os.OpenFile(filepath.Join(dir, "loopforge.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		slog.Warn("cannot open the log file", "err", err)
		return func() {}
	}
	slog.SetDefault(slog.New(slog.NewMultiHandler(
		slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel(slog.LevelWarn)}),
		slog.NewJSONHandler(f, &slog.HandlerOptions{Level: logLevel(slog.LevelInfo)}),
	)))
	return func() { _ = f.Close() }
}

// openService opens the backend with the current directory's configuration;
// the caller closes it.
func (e *env) openService(cmd *cobra.Command) (*service.Service, error) {
	wd, _ := os.Getwd()
	return e.newService(cmd.Context(), wd)
}

func defaultService(ctx context.Context, workdir string) (*service.Service, error) {
	// Reload reads the same files again: a key added to .env is picked up
	// without a restart (the app's "Check again").
	load := func() (*config.Config, error) { return config.Load(config.Options{Workdir: workdir}) }
	cfg, err := load()
	if err != nil {
		return nil, err
	}
	return service.New(ctx, service.Options{Config: cfg, Reload: load})
}

func (e *env) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "loopforge",
		Short: "Watch AI models write, run and fix code",
		Long: "loopforge runs a code-generation loop: generate → execute → reflect → generate, until the code\n" +
			"runs cleanly or the iteration limit is reached. With no command it opens the desktop window, or,\n" +
			"where there is none (or no display), serves the web UI and opens it in the browser.",
		Version:       service.VersionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Not cobra.NoArgs: its "unknown command" error is untyped, and
		// must be a usage error (exit 2) like every other mistake.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for %q; see `loopforge --help`", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.desktop(cmd.Context())
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	root.AddCommand(e.runCmd(), e.compareCmd(), e.statsCmd(), e.exportCmd(), e.importCmd(), e.sessionsCmd(), e.providersCmd(), e.serveCmd(), e.classCmd(), e.doctorCmd())
	return root
}

func (e *env) desktop(ctx context.Context) error {
	if e.faces.BindingsOnly {
		return e.faces.Desktop(nil, e.faces.Assets)
	}
	if !hasDisplay() {
		return e.webUI(ctx, "no display found for the desktop window")
	}
	if e.faces.Desktop == nil {
		return e.orWebUI(ctx, e.execDesktop())
	}
	if check := e.faces.WindowCheck; check != nil {
		if err := check(); errors.Is(err, ErrNoWindow) {
			return e.webUI(ctx, err.Error())
		} else if err != nil {
			return err
		}
	}
	wd, _ := os.Getwd()
	svc, err := e.newService(ctx, wd)
	if err != nil {
		return err
	}
	defer svc.Close()
	defer logToFile(e.stderr, svc.Config().LogDir)()
	return e.faces.Desktop(svc, e.faces.Assets)
}

// execDesktop replaces this process (the CLI build) with the desktop build
// next to its executable; it returns only when that cannot be done.
func (e *env) execDesktop() error {
	self, err := e.self()
	if err != nil {
		return fmt.Errorf("cannot find the desktop window: %w", err)
	}
	if e.execed {
		return usagef("%s has no desktop window (it is a CLI build); rebuild with `make build`, or run `loopforge serve` for the web UI", self)
	}
	path := filepath.Join(filepath.Dir(self), desktopFile)
	if fi, err := os.Stat(path); err != nil || !isExecutable(fi) {
		return &noDesktopError{path: path} // the web UI in the browser instead
	}
	if err := e.exec(path, []string{path}, append(os.Environ(), desktopExecVar+"=1")); err != nil {
		return fmt.Errorf("starting the desktop window %s: %w", path, err)
	}
	return nil // only a test's exec returns (and Windows's, once the window has closed)
}
