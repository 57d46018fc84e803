package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Report is what `loopforge doctor` shows: the isolation generated code gets
// on this machine, layer by layer, and how to get more.
type Report struct {
	// Isolation and Protections are what a run with default options gets.
	Isolation   string      `json:"isolation"`
	Protections Protections `json:"protections"`
	Layers      []Layer     `json:"layers"`
	// Interpreters maps a language to the binary that runs it ("" = none).
	Interpreters map[string]string `json:"interpreters"`
	// Matplotlib is the version the Python interpreter imports ("" = it
	// cannot import matplotlib: figures are not drawn, image files the code
	// writes are still kept).
	Matplotlib string `json:"matplotlib"`
	Host       *Host  `json:"host"`
}

// Layer is one isolation mechanism and whether this machine has it.
type Layer struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Fix says how to get the layer (or the missing part of it).
	Fix string `json:"fix,omitempty"`
}

// Doctor probes the machine (once per process, see [Probe]) and explains
// the result.
func Doctor() Report { return doctor(Probe()) }

// DoctorCached is Doctor on [ProbeCached]'s answer.
func DoctorCached(o ProbeOptions) Report { return doctor(ProbeCached(o)) }

// matplotlibVersion imports matplotlib with python as the sandbox starts
// it (isolated: no user site-packages, none of our environment: env gives
// the environment for a temporary home) and returns its version, "" when
// the import fails. Its configuration goes to a temporary directory, never
// the user's home.
func matplotlibVersion(python string, env func(tmp string) []string) string {
	if python == "" {
		return ""
	}
	tmp, err := os.MkdirTemp("", "loopforge-doctor-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-c", "import matplotlib; print(matplotlib.__version__)")
	cmd.Env = append(env(tmp), "MPLCONFIGDIR="+tmp, "MPLBACKEND=Agg")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func orNone(s string) string {
	if s == "" {
		return "python (none found)"
	}
	return s
}

// Text renders the report for a terminal.
func (rep Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Isolation for generated code: %s\n", rep.Isolation)
	p := rep.Protections
	tick := func(ok bool) string {
		if ok {
			return "✓"
		}
		return "✗"
	}
	fmt.Fprintf(&b, "Protections: files %s  network %s  processes %s  memory %s  signals %s\n\n",
		tick(p.Files), tick(p.Network), tick(p.Processes), tick(p.Memory), tick(p.Signals))
	for _, l := range rep.Layers {
		status := "ok"
		if !l.OK {
			status = "missing"
		}
		fmt.Fprintf(&b, "  %-11s %-8s %s\n", l.Name, status, l.Detail)
		if l.Fix != "" {
			fmt.Fprintf(&b, "  %-11s %-8s → %s\n", "", "", l.Fix)
		}
	}
	b.WriteString("\nInterpreters:")
	for _, lang := range []string{"python", "sh", "node"} {
		path, ok := rep.Interpreters[lang]
		if !ok {
			continue // not a language of this system (sh on Windows)
		}
		if path == "" {
			path = "not found"
		}
		fmt.Fprintf(&b, " %s %s;", lang, path)
	}
	s := strings.TrimSuffix(b.String(), ";") + "\n"
	if rep.Matplotlib != "" {
		s += fmt.Sprintf("Pictures: matplotlib %s; figures and the image files a program writes are shown with its output.\n", rep.Matplotlib)
	} else {
		s += "Pictures: matplotlib is not available to " + orNone(rep.Interpreters["python"]) +
			"; image files a program writes are still shown. → install it: " + matplotlibFix + "\n"
	}
	if missing := p.Missing(); len(missing) > 0 {
		names := make([]string, len(missing))
		for i, m := range missing {
			names[i] = string(m)
		}
		s += "\nMissing: " + strings.Join(names, ", ") + ". Each run records and shows what applied to it.\n"
	}
	if h := rep.Host; h != nil && h.Cached {
		s += fmt.Sprintf("\nKernel and bwrap as probed at %s (kept until the next boot or a new loopforge binary; "+
			"`loopforge doctor --fresh` probes again).\n", h.ProbedAt.Local().Format("2006-01-02 15:04:05"))
	}
	return s
}

// ProbeOptions say where [ProbeCached] keeps its answer.
type ProbeOptions struct {
	// CacheDir holds the cached probe ("" = no cache: every process probes).
	CacheDir string
	// Fresh ignores the cache (and the process's earlier answer) and
	// rewrites it.
	Fresh bool
}
