package cli

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/loopforge/loopforge/backend/server"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/spf13/cobra"
)

func (e *env) classCmd() *cobra.Command {
	var name, listen, resume string
	def := DefaultAddr
	if e.serveAddr != "" {
		def = e.serveAddr
	}
	cmd := &cobra.Command{
		Use:   "class",
		Short: "Teach a class: students join from their browsers and run loops within your limits",
		Long: `Serves the web UI as a classroom: the instructor's URL (with its token) opens the
class view; students open the join URL, type the code and a display name, and run
loops on this machine's providers within the limits the instructor sets.
Listens on loopback unless --listen names another address (0.0.0.0:8765, or an
interface's address) so the students' machines can reach it. Ctrl-C ends the class.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.class(cmd.Context(), classFlags{name: name, listen: listen, resume: resume, explicit: cmd.Flags().Changed("listen")})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", `the class's name, e.g. "Turma A" (default: the date)`)
	cmd.Flags().StringVar(&listen, "listen", def, "address to listen on; 0.0.0.0:PORT or an interface's address opens it to the network")
	cmd.Flags().StringVar(&resume, "resume", "", "reopen a stored class by id (same students; a new join code)")
	return cmd
}

type classFlags struct {
	name, listen, resume string
	explicit             bool
}

func (e *env) class(ctx context.Context, f classFlags) error {
	host, _, err := net.SplitHostPort(f.listen)
	if err != nil {
		return usagef("--listen %q: %v", f.listen, err)
	}
	if host != "" && host != "localhost" && net.ParseIP(host) == nil {
		return usagef("--listen %q: give an IP address (0.0.0.0 for every interface) or localhost", f.listen)
	}
	h, err := e.startServing(ctx, f.listen, f.explicit)
	if err != nil {
		return err
	}
	defer h.close()
	ln, svc := h.ln, h.svc

	port := ln.Addr().(*net.TCPAddr).Port
	joinHost := publicHost(host)
	joinURL := "http://" + net.JoinHostPort(joinHost, strconv.Itoa(port)) + "/join"
	view, err := svc.OpenClass(ctx, service.ClassOptions{Name: f.name, Resume: f.resume, JoinURL: joinURL})
	if err != nil {
		ln.Close()
		return err
	}
	defer func() {
		ectx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := svc.EndClass(ectx); err != nil {
			fmt.Fprintln(e.stderr, "recording the end of the class:", err)
		}
	}()

	local := net.JoinHostPort(host, strconv.Itoa(port))
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		local = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	}
	fmt.Fprintf(e.stdout, "class %q (id %s)\n", view.Name, view.ID)
	fmt.Fprintf(e.stdout, "  instructor: http://%s/?token=%s    ← keep private; opens the instructor view\n", local, h.token)
	fmt.Fprintf(e.stdout, "  students:   %s    code: %s\n", joinURL, view.JoinCode)
	fmt.Fprintf(e.stdout, "  limits:     %s    (change them in the Class tab)\n", view.Limits.Summary())
	if server.IsLoopback(host) {
		fmt.Fprintln(e.stderr, "listening on loopback only: students on other machines need --listen 0.0.0.0:PORT")
	}
	fmt.Fprintln(e.stderr, "press Ctrl-C to end the class")
	return serveUntilSignal(ctx, h.srv, ln)
}

// publicHost is the host students use: the listen address, or for an
// unspecified one (0.0.0.0, ::) this machine's first non-loopback IPv4.
func publicHost(host string) string {
	ip := net.ParseIP(host)
	if host == "" || ip != nil && ip.IsUnspecified() {
		addrs, _ := net.InterfaceAddrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
				return n.IP.String()
			}
		}
		return "127.0.0.1"
	}
	return host
}
