package loop

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"
)

// promptCase is one template with samples of its data: a full one, and the
// zero value, so both sides of each {{if}} run.
type promptCase struct {
	name    string
	data    reflect.Type
	samples []any
}

func caseOf[T any](p prompt[T], full T) promptCase {
	var zero T
	return promptCase{name: string(p), data: reflect.TypeFor[T](), samples: []any{full, zero}}
}

// promptCases has every template of prompts/ (TestPromptTemplates fails
// for one that is missing).
var promptCases = []promptCase{
	caseOf(generateSystemPrompt, languageData{Language: "Python", Fence: "python", Structured: true}),
	caseOf(formatErrorPrompt, formatErrorData{languageData{Language: "Python", Fence: "python", Structured: true}, "no code block"}),
	caseOf(execFailedPrompt, execFeedback{Description: "exit status 1", ExitCode: 1, Stderr: "Traceback", Stdout: "partial"}),
	caseOf(reflectSystemPrompt, languageData{Language: "POSIX shell", Fence: "sh"}),
	caseOf(reflectUserPrompt, reflectData{Prompt: "greet", Fence: "python", Code: "print(1/0)", Description: "exit status 1",
		Stderr: "ZeroDivisionError", Tests: &sampleTests}),
	caseOf(testsFailedPrompt, sampleTests),
	caseOf(withReflectionPrompt, reflectionData{Feedback: "it failed", Reflection: "divide by something else"}),
	caseOf(wsSystemPrompt, wsSystemData{Tools: true, Validate: []string{"go test ./..."}}),
	caseOf(wsImplementPrompt, implementData{Instructions: "Fix add", Constraints: []string{"POSIX sh"}, Validate: []string{"sh test.sh"},
		Inputs: []inputView{{Path: "calc.sh", Fence: "sh", Content: "add() { :; }"}, {Path: "tests", Dir: true, Content: "a.sh"}}}),
	caseOf(wsFixPrompt, fixData{Attempt: 2, Audit: []string{"leaves a TODO"}, Problem: "too many tool rounds", Failures: []validation{
		{Command: "sh test.sh", ExitCode: 1, Stdout: "ran 3", Stderr: "FAIL"}, {Command: "sleep 99", TimedOut: true}}}),
	caseOf(auditSystemPrompt, struct{}{}),
	caseOf(auditUserPrompt, auditData{Instructions: "Fix add", Constraints: []string{"POSIX sh"}, Diff: "+add", Summary: "fixed it"}),
}

var sampleTests = testsFeedback{Passed: 1, Total: 3, Failures: []testFailure{
	{Index: 2, Name: "sum", Verdict: "wrong answer", Input: "2 3", Expected: "5", Actual: "6"},
	{Index: 3, Verdict: "runtime error", Assert: true, Input: "assert f() == 1", Detail: "NameError"},
	{Index: 4, Verdict: "wrong answer", Hidden: true},
}}

// Every template executes with its typed data, and every field it names
// exists in that type, in branches the samples do not take too.
func TestPromptTemplates(t *testing.T) {
	var names []string
	for _, tm := range templates().Templates() {
		if strings.HasSuffix(tm.Name(), ".tmpl") {
			names = append(names, tm.Name())
		}
	}
	var covered []string
	for _, c := range promptCases {
		covered = append(covered, c.name)
		tm := templates().Lookup(c.name)
		if tm == nil {
			t.Errorf("%s: no such template", c.name)
			continue
		}
		for _, problem := range checkFields(tm.Tree.Root, c.data) {
			t.Errorf("%s: %s", c.name, problem)
		}
		for i, data := range c.samples {
			var b strings.Builder
			if err := tm.Execute(&b, data); err != nil {
				t.Errorf("%s, sample %d: %v", c.name, i, err)
			} else if strings.Contains(b.String(), "<no value>") {
				t.Errorf("%s, sample %d: a value is missing:\n%s", c.name, i, b.String())
			}
		}
	}
	slices.Sort(names)
	slices.Sort(covered)
	if !slices.Equal(names, covered) {
		t.Errorf("templates %v, cases %v: every template needs one case", names, covered)
	}
}

// The test above catches a misspelt field even where the samples do not
// reach it (here: inside a range over a list that is empty in one sample),
// and executing with missingkey=error catches it where they do.
func TestPromptCheckCatchesAMissingField(t *testing.T) {
	src, err := promptFS.ReadFile("prompts/ws_fix.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "{{.Command}}", "{{.Comand}}", 1)
	if bad == string(src) {
		t.Fatal("ws_fix.tmpl no longer names .Command; pick another field for this test")
	}
	tm := template.Must(template.New("bad").Option("missingkey=error").Parse(bad))
	problems := checkFields(tm.Tree.Root, reflect.TypeFor[fixData]())
	if len(problems) != 1 || !strings.Contains(problems[0], "Comand") {
		t.Errorf("problems = %q, want one about Comand", problems)
	}
	if err := tm.Execute(new(strings.Builder), fixData{}); err != nil {
		t.Errorf("the empty sample does not reach the field, yet: %v", err)
	}
	full := promptCases[slices.IndexFunc(promptCases, func(c promptCase) bool { return c.name == string(wsFixPrompt) })].samples[0]
	if err := tm.Execute(new(strings.Builder), full); err == nil || !strings.Contains(err.Error(), "Comand") {
		t.Errorf("executing the full sample: %v, want an error about Comand", err)
	}
}

// checkFields lists the fields node names that its data type lacks,
// following dot into {{range}} and {{with}}; a construct it cannot follow
// is listed too, so the check never passes by skipping something.
func checkFields(node parse.Node, dot reflect.Type) []string {
	switch n := node.(type) {
	case *parse.ListNode:
		var bad []string
		for _, c := range n.Nodes {
			bad = append(bad, checkFields(c, dot)...)
		}
		return bad
	case *parse.TextNode, *parse.CommentNode:
		return nil
	case *parse.ActionNode:
		_, bad := pipeType(n.Pipe, dot)
		return bad
	case *parse.IfNode:
		return checkBranch(n.Pipe, n.List, n.ElseList, dot, func(t reflect.Type) reflect.Type { return dot })
	case *parse.WithNode:
		return checkBranch(n.Pipe, n.List, n.ElseList, dot, func(t reflect.Type) reflect.Type { return t })
	case *parse.RangeNode:
		return checkBranch(n.Pipe, n.List, n.ElseList, dot, elemType)
	case *parse.TemplateNode:
		// {{template "name" pipeline}}: that template, with dot the
		// pipeline's type.
		inner := dot
		var bad []string
		if n.Pipe != nil {
			inner, bad = pipeType(n.Pipe, dot)
		}
		tm := templates().Lookup(n.Name)
		if tm == nil || inner == nil {
			return append(bad, fmt.Sprintf("%q: no template, or no type for its dot", node))
		}
		for inner.Kind() == reflect.Pointer {
			inner = inner.Elem()
		}
		return append(bad, checkFields(tm.Tree.Root, inner)...)
	default:
		return []string{fmt.Sprintf("%q: not followed by this check", node)}
	}
}

// checkBranch checks an {{if}}, {{with}} or {{range}}: its body with dot
// as inner makes it from the pipeline's type, its else with dot unchanged.
func checkBranch(pipe *parse.PipeNode, list, elseList *parse.ListNode, dot reflect.Type, inner func(reflect.Type) reflect.Type) []string {
	t, bad := pipeType(pipe, dot)
	if list != nil {
		bad = append(bad, checkFields(list, inner(t))...)
	}
	if elseList != nil {
		bad = append(bad, checkFields(elseList, dot)...)
	}
	return bad
}

// pipeType checks a pipeline's arguments and returns the type of its value
// (nil when a function makes it).
func pipeType(p *parse.PipeNode, dot reflect.Type) (reflect.Type, []string) {
	var t reflect.Type
	var bad []string
	for _, cmd := range p.Cmds {
		t = nil
		for i, arg := range cmd.Args {
			at, b := argType(arg, dot)
			bad = append(bad, b...)
			if i == 0 {
				t = at
			}
		}
	}
	return t, bad
}

func argType(arg parse.Node, dot reflect.Type) (reflect.Type, []string) {
	switch a := arg.(type) {
	case *parse.DotNode:
		return dot, nil
	case *parse.FieldNode:
		return fieldType(dot, a.Ident)
	case *parse.PipeNode:
		return pipeType(a, dot)
	case *parse.IdentifierNode, *parse.StringNode, *parse.NumberNode, *parse.BoolNode:
		return nil, nil
	default:
		return nil, []string{fmt.Sprintf("%q: not followed by this check", arg)}
	}
}

func fieldType(t reflect.Type, idents []string) (reflect.Type, []string) {
	for _, id := range idents {
		if t == nil {
			return nil, []string{fmt.Sprintf(".%s: the type of dot is unknown here", id)}
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f, ok := reflect.StructField{}, false
		if t.Kind() == reflect.Struct {
			f, ok = t.FieldByName(id)
		}
		if !ok || !f.IsExported() {
			return nil, []string{fmt.Sprintf("%s has no field %s", t, id)}
		}
		t = f.Type
	}
	return t, nil
}

func elemType(t reflect.Type) reflect.Type {
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		return t.Elem()
	}
	return nil
}
