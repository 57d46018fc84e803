package loop

import (
	"errors"
	"strings"
	"testing"
)

func TestExtractCode(t *testing.T) {
	py := languages["python"]
	tests := []struct {
		name, in   string
		structured bool
		want       string
		wantErr    string
		wantCode   string
	}{
		{name: "python fence", in: "text\n```python\nprint(1)\n```\nmore", want: "print(1)\n"},
		{name: "py alias", in: "```py\nx = 1\n```", want: "x = 1\n"},
		{name: "prefers python over other", in: "```bash\nls\n```\n```python\nprint(2)\n```", want: "print(2)\n"},
		{name: "untagged fallback", in: "```\nprint(3)\n```", want: "print(3)\n"},
		{name: "tilde fence", in: "~~~python\nprint(4)\n~~~", want: "print(4)\n"},
		{name: "nested backticks inside longer fence", in: "````python\ns = '```'\n````", want: "s = '```'\n"},
		{name: "no fence", in: "Just prose.", wantErr: "no fenced code block marked python", wantCode: FormatNoBlock},
		{name: "wrong language only", in: "```js\nconsole.log(1)\n```", wantErr: "a code block marked js but none marked python", wantCode: FormatOtherBlock},
		{name: "unclosed", in: "```python\nprint(1)\n", wantErr: "never closed", wantCode: FormatUnclosed},
		{name: "empty block", in: "```python\n\n```", wantErr: "was empty", wantCode: FormatEmptyBlock},
		{name: "empty answer", in: "  ", wantErr: "empty", wantCode: FormatEmpty},
		{name: "json", in: `{"explanation":"e","code":"print(5)"}`, structured: true, want: "print(5)\n"},
		{name: "json in fence", in: "```json\n{\"explanation\":\"e\",\"code\":\"print(6)\"}\n```", structured: true, want: "print(6)\n"},
		{name: "invalid json falls back to fence", in: "Sure:\n```python\nprint(7)\n```", structured: true, want: "print(7)\n"},
		{name: "invalid json", in: `{"code": "print(`, structured: true, wantErr: "not valid JSON", wantCode: FormatInvalidJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractCode(tt.in, py, tt.structured)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, errNoCode) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				// The text is shown to the user as prose: no Markdown fence in it.
				fe, ok := errors.AsType[*FormatError](err)
				if !ok || fe.Code != tt.wantCode || strings.Contains(err.Error(), "```") {
					t.Fatalf("err = %#v, want a *FormatError %s without a fence in its text", err, tt.wantCode)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
