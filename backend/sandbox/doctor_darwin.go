package sandbox

func doctor(h *Host) Report {
	python, pyErr := findPython("")
	node := findNode("")
	layers := append([]Layer{
		{Name: "basic", OK: true, Detail: "own process group, killed whole at the timeout or Stop; rlimits: CPU time, file size, open files, no core dumps; environment rebuilt without the app's; private temp dir"},
		{Name: "processes", Detail: "not bounded in number, and a process that calls setsid() leaves the group and survives the run (macOS has no cgroups nor child subreaper)", Fix: isolationFix},
		{Name: "memory", Detail: "no memory limit: macOS does not enforce RLIMIT_AS", Fix: isolationFix},
	}, plainLayers("macOS")...)
	sys := &shimOS{path: pathWith(darwinSystemPath, python, node), lang: "en_US.UTF-8"}
	env := func(tmp string) []string { return sys.env(nil, tmp) }
	return plainDoctor(h, IsolationBasic, Protections{}, layers,
		map[string]string{"python": python, "sh": "/bin/sh", "node": node}, pyErr, env)
}
