//go:build !linux

package sandbox

import "errors"

// isolationFix is the way to the protections Windows and macOS do not give.
const isolationFix = "for file and network isolation, run loopforge on Linux with bubblewrap (a Linux virtual machine will do)"

// plainLayers are the layers every plain level lacks, said plainly.
func plainLayers(osName string) []Layer {
	return []Layer{
		{Name: "files", Detail: "no file isolation on " + osName + ": the code can read and change your files", Fix: isolationFix},
		{Name: "network", Detail: "no network isolation on " + osName + ": the code can reach the network", Fix: isolationFix},
	}
}

// plainDoctor is the report of a plain level: p and layers are the OS's;
// pythonErr is why no Python was found, if none was.
func plainDoctor(h *Host, level string, p Protections, layers []Layer, interpreters map[string]string,
	pythonErr error, env func(string) []string) Report {
	if pythonErr != nil {
		fix := ""
		var ie *InterpreterError
		if errors.As(pythonErr, &ie) {
			fix = ie.Hint
		}
		layers = append([]Layer{{Name: "python", Detail: "not found: generated code cannot run", Fix: fix}}, layers...)
	}
	return Report{
		Isolation:    level,
		Protections:  p,
		Layers:       layers,
		Interpreters: interpreters,
		Matplotlib:   matplotlibVersion(interpreters["python"], env),
		Host:         h,
	}
}
