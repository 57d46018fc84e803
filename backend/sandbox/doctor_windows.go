package sandbox

func doctor(h *Host) Report {
	python, pyErr := findPython("")
	node := findNode("")
	job := Layer{Name: "job object", OK: h.Problem == "",
		Detail: "kill-on-close job object: the code and every process it starts end with the run (timeout, Stop, output cap) " +
			"or with loopforge; a process limit and one memory limit for the whole run; environment rebuilt without the app's; private temp dir"}
	if !job.OK {
		job.Detail = h.Problem
		job.Fix = "run loopforge outside the tool that started it in a job object of its own (some terminals and CI runners do)"
	}
	p := Protections{Processes: job.OK, Memory: job.OK}
	sys := newJobOS(python, node)
	env := func(tmp string) []string { return sys.env(nil, tmp) }
	return plainDoctor(h, IsolationJob, p, append([]Layer{job}, plainLayers("Windows")...),
		map[string]string{"python": python, "node": node}, pyErr, env)
}
