package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/loopforge/loopforge/backend/loop"
)

func TestLoadTask(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "task.yml")
	if err := os.WriteFile(p, []byte("instructions: |\n  Fix add.\ninputs: [calc.sh, tests/]\nconstraints:\n  - POSIX sh\nvalidate:\n  - sh test.sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := loadTask(p)
	if err != nil {
		t.Fatal(err)
	}
	want := &loop.Task{Instructions: "Fix add.\n", Inputs: []string{"calc.sh", "tests/"}, Constraints: []string{"POSIX sh"}, Validate: []string{"sh test.sh"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("task = %+v", got)
	}
	if err := os.WriteFile(p, []byte("instructions: x\nvalidation: [oops]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadTask(p); err == nil {
		t.Error("unknown key accepted")
	}
	if err := os.WriteFile(p, []byte("inputs: [a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadTask(p); err == nil {
		t.Error("task without instructions accepted")
	}
}
