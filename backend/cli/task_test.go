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
	got, suite, err := loadTask(p)
	if err != nil {
		t.Fatal(err)
	}
	want := &loop.Task{Instructions: "Fix add.\n", Inputs: []string{"calc.sh", "tests/"}, Constraints: []string{"POSIX sh"}, Validate: []string{"sh test.sh"}}
	if !reflect.DeepEqual(got, want) || suite != nil {
		t.Errorf("task = %+v, tests %+v", got, suite)
	}
	if err := os.WriteFile(p, []byte("instructions: x\nvalidation: [oops]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadTask(p); err == nil {
		t.Error("unknown key accepted")
	}
	if err := os.WriteFile(p, []byte("inputs: [a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadTask(p); err == nil {
		t.Error("task without instructions accepted")
	}
}

func TestLoadTaskWithTests(t *testing.T) {
	p := filepath.Join(t.TempDir(), "task.yml")
	if err := os.WriteFile(p, []byte("instructions: Add two numbers read from stdin.\ntests:\n  - {stdin: '2 3', expected: '5'}\n  - {stdin: '1 1', expected: '2', hidden: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task, suite, err := loadTask(p)
	if err != nil || task.Instructions != "Add two numbers read from stdin." || task.Workspace() || len(suite.Cases) != 2 || suite.Hidden() != 1 {
		t.Fatalf("%+v %+v %v", task, suite, err)
	}
	if err := os.WriteFile(p, []byte("instructions: x\ntests: [{stdin: '1'}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadTask(p); err == nil {
		t.Error("a test without expected accepted")
	}
}
