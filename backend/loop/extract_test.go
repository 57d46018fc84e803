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
	}{
		{name: "python fence", in: "text\n```python\nprint(1)\n```\nmore", want: "print(1)\n"},
		{name: "py alias", in: "```py\nx = 1\n```", want: "x = 1\n"},
		{name: "prefers python over other", in: "```bash\nls\n```\n```python\nprint(2)\n```", want: "print(2)\n"},
		{name: "untagged fallback", in: "```\nprint(3)\n```", want: "print(3)\n"},
		{name: "tilde fence", in: "~~~python\nprint(4)\n~~~", want: "print(4)\n"},
		{name: "nested backticks inside longer fence", in: "````python\ns = '```'\n````", want: "s = '```'\n"},
		{name: "no fence", in: "Just prose.", wantErr: "no ```python fenced code block"},
		{name: "wrong language only", in: "```js\nconsole.log(1)\n```", wantErr: "no ```python block"},
		{name: "unclosed", in: "```python\nprint(1)\n", wantErr: "never closed"},
		{name: "empty block", in: "```python\n\n```", wantErr: "was empty"},
		{name: "empty answer", in: "  ", wantErr: "empty"},
		{name: "json", in: `{"explanation":"e","code":"print(5)"}`, structured: true, want: "print(5)\n"},
		{name: "json in fence", in: "```json\n{\"explanation\":\"e\",\"code\":\"print(6)\"}\n```", structured: true, want: "print(6)\n"},
		{name: "invalid json falls back to fence", in: "Sure:\n```python\nprint(7)\n```", structured: true, want: "print(7)\n"},
		{name: "invalid json", in: `{"code": "print(`, structured: true, wantErr: "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractCode(tt.in, py, tt.structured)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, errNoCode) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
