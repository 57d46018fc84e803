package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// childSpec is what the macOS shim applies: the rlimits, then exec. It is
// the part of Linux's spec (child.go) that exists on macOS; a spec with
// anything more (a layer this shim cannot apply) is refused, not skipped.
type childSpec struct {
	Version   int           `json:"v"`
	Path      string        `json:"path"`
	Args      []string      `json:"args"`
	Rlimits   []childRlimit `json:"rlimits"`
	Isolation string        `json:"isolation"`
}

// runChild is the macOS shim: it reads the spec, reports on fd 3, sets the
// rlimits and execs the interpreter (see shim_unix.go for the protocol).
func runChild() {
	raw, ok := os.LookupEnv(specEnv)
	if !ok {
		fmt.Fprintln(os.Stderr, "loopforge: "+childArg+" is internal to the sandbox")
		os.Exit(2)
	}
	syscall.CloseOnExec(statusFD)
	status := os.NewFile(statusFD, "sandbox-status")
	fail := func(err error) {
		_, _ = status.Write([]byte(string(statusFail) + err.Error()))
		fmt.Fprintf(os.Stderr, "loopforge sandbox: %v\n", err)
		os.Exit(childFailExit)
	}
	spec, err := decodeSpec(raw)
	if err != nil {
		fail(err)
	}
	env := make([]string, 0, 8)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, specEnv+"=") && !strings.HasPrefix(kv, "PWD=") {
			env = append(env, kv)
		}
	}
	if _, err := status.Write([]byte{statusExec}); err != nil {
		fail(fmt.Errorf("status pipe: %w", err))
	}
	if err := setRlimits(spec.Rlimits); err != nil {
		fail(err)
	}
	err = syscall.Exec(spec.Path, spec.Args, env)
	fail(fmt.Errorf("exec %s: %w", spec.Path, err))
}

func decodeSpec(raw string) (childSpec, error) {
	var spec childSpec
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return spec, fmt.Errorf("decode spec (is %s older than the app? rebuild it): %w", os.Args[0], err)
	}
	switch {
	case spec.Version != specVersion:
		return spec, fmt.Errorf("spec version %d, this shim (%s) knows %d: rebuild it with the app", spec.Version, os.Args[0], specVersion)
	case spec.Isolation != IsolationBasic:
		return spec, fmt.Errorf("isolation %q is not available on macOS", spec.Isolation)
	case spec.Path == "" || len(spec.Args) == 0:
		return spec, errors.New("spec names no interpreter")
	}
	return spec, nil
}
