package sandbox

import "testing"

func TestNameProgram(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// a warm run's program, in the figure hook's dir
		{`  File "/tmp/loopforge-pyhook-serve-41-123456/loopforge-code.py", line 3, in <module>`,
			`  File "prog.py", line 3, in <module>`},
		// Windows, a user name with a space, quoted by Python
		{`  File "C:\Users\Ana Lima\AppData\Local\Temp\loopforge-run-987\loopforge-code.py", line 1, in <module>`,
			`  File "prog.py", line 1, in <module>`},
		// bare, as sh writes it; a warm run's program dir
		{"/var/tmp/loopforge-prog-t-8-55/loopforge-code.py: line 2: foo: not found",
			"prog.py: line 2: foo: not found"},
		{"python3: can't open file '/tmp/loopforge-run-1/loopforge-code.py': [Errno 2]",
			"python3: can't open file 'prog.py': [Errno 2]"},
		// not the sandbox's: kept
		{`  File "/usr/lib/python3.13/json/__init__.py", line 346, in loads`,
			`  File "/usr/lib/python3.13/json/__init__.py", line 346, in loads`},
		{`  File "/home/ana/loopforge-code.py", line 1`, `  File "/home/ana/loopforge-code.py", line 1`},
		{`  File "<stdin>", line 1, in <module>`, `  File "<stdin>", line 1, in <module>`},
	} {
		if got := NameProgram(c.in, "prog.py"); got != c.want {
			t.Errorf("NameProgram(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}
