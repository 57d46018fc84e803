package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/server"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/spf13/cobra"
)

// DefaultAddr is where `loopforge serve` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8765"

func (e *env) serveCmd() *cobra.Command {
	var addr string
	def := DefaultAddr
	if e.serveAddr != "" {
		def = e.serveAddr
	}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the web UI on loopback (prints a URL with an access token)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.serve(cmd.Context(), addr, cmd.Flags().Changed("addr"))
		},
	}
	cmd.Flags().StringVar(&addr, "addr", def, "loopback address to listen on (port 0 = any free port)")
	return cmd
}

func (e *env) serve(ctx context.Context, addr string, explicit bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--addr %q: %v", addr, err)
	}
	if !server.IsLoopback(host) {
		return usagef("--addr %q: loopforge serves on loopback only (127.0.0.1, ::1 or localhost)", addr)
	}
	h, err := e.startServing(ctx, addr, explicit)
	if err != nil {
		return err
	}
	defer h.close()
	fmt.Fprintf(e.stdout, "loopforge is serving at %s\n", h.url())
	fmt.Fprintln(e.stderr, "open that URL in a browser; press Ctrl-C to stop")
	return serveUntilSignal(ctx, h.srv, h.ln)
}

// hosting is what `serve` and `class` share: the listener, the service on
// the history, and the HTTP server guarded by a fresh token.
type hosting struct {
	ln    net.Listener
	svc   *service.Service
	srv   *http.Server
	token string
	api   *server.Server
	close func() // closes the service and stops logging to its file
}

// startServing listens on addr, opens the service and logs to its file.
// On error nothing is left open.
func (e *env) startServing(ctx context.Context, addr string, explicit bool) (*hosting, error) {
	ln, err := e.listen(addr, explicit)
	if err != nil {
		return nil, err
	}
	wd, _ := os.Getwd()
	svc, err := e.newService(ctx, wd)
	if err != nil {
		ln.Close()
		return nil, err
	}
	stopLog := logToFile(e.stderr, svc.Config().LogDir)
	token := server.NewToken()
	api := server.New(server.Options{Assets: e.faces.Assets, Token: token, Version: service.Version, Backend: svc})
	return &hosting{
		ln: ln, svc: svc, token: token, api: api,
		srv: &http.Server{
			Handler:           api,
			ReadHeaderTimeout: 10 * time.Second,
		},
		close: func() { stopLog(); _ = svc.Close() },
	}, nil
}

// serveUntilSignal serves until the server fails or Ctrl-C (or SIGTERM)
// asks it to stop.
func serveUntilSignal(ctx context.Context, srv *http.Server, ln net.Listener) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}
	return nil
}

// listen opens addr. When the port is taken and the user did not choose it
// (the default port, held by another loopforge serve, say), any free port on
// the same host will do, and the user is told which; an address the user gave
// with --addr is theirs to change (exit code 2).
func (e *env) listen(addr string, explicit bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if !addrInUse(err) {
		return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	host, port, _ := net.SplitHostPort(addr)
	if explicit {
		return nil, usagef("cannot serve on %s: the port is already in use (another loopforge serve?); stop that program or pick another port, e.g. --addr %s", addr, net.JoinHostPort(host, "0"))
	}
	ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("port %s is in use and no other port is free on %s: %w", port, host, err)
	}
	fmt.Fprintf(e.stderr, "port %s is in use; serving on %s instead\n", port, ln.Addr())
	return ln, nil
}
