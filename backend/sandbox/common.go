package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
)

// tee adds a caller's live copy of a stream after its capped buffer, which
// never fails, so the capture is whole whatever the live writer does.
func tee(buf *procgroup.HeadTail, live io.Writer) io.Writer {
	if live == nil {
		return buf
	}
	return io.MultiWriter(buf, live)
}

// testMarkerKey carries an extra environment entry for the code, which the
// tests use to find every process a run started.
type testMarkerKey struct{}

// statusFromCause is the status of a run stopped for cause.
func statusFromCause(cause error) Status {
	switch {
	case errors.Is(cause, errTimedOut):
		return StatusTimeout
	case errors.Is(cause, errOutputLimit):
		return StatusOutputLimit
	}
	return StatusKilled
}

func failed(res Result, err error) (Result, error) {
	res.Status = StatusSandboxError
	res.Error = err.Error()
	return res, err
}

// isMemoryError reports whether the program died of a Python MemoryError:
// the last line of a traceback names the exception.
func isMemoryError(stderr string) bool {
	last := lastLine(stderr)
	if last == "MemoryError" || strings.HasPrefix(last, "MemoryError:") {
		return true
	}
	// Node.js: V8 aborts with this line when the heap limit is reached, and
	// a failed Buffer/ArrayBuffer allocation is a RangeError.
	return strings.Contains(stderr, "JavaScript heap out of memory") ||
		strings.Contains(stderr, "RangeError: Array buffer allocation failed")
}

// removeWorkdir deletes a run's directory even if the code removed its own
// permissions on subdirectories (which stops RemoveAll for non-root users).
func removeWorkdir(dir string) {
	if err := os.RemoveAll(dir); err == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	err := os.RemoveAll(dir)
	// Windows frees a killed process's handles (its cwd, open files) only
	// once the process is gone from the kernel, some time after the job
	// reported it ended; until then its files cannot be deleted. Wine
	// takes seconds. This runs in the background: wait, within bounds.
	for wait := 50 * time.Millisecond; err != nil && runtime.GOOS == "windows" && wait <= 3*time.Second; wait *= 2 {
		time.Sleep(wait)
		err = os.RemoveAll(dir)
	}
	if err != nil {
		slog.Warn("sandbox: remove work dir", "dir", dir, "err", err)
	}
}
