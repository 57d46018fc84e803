package export

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// The fixture is a comparison of three providers on one prompt: gemini-api
// succeeds at once, claude after a fix (with a reflection), ollama never
// (the iteration limit, with an answer that had no code and a timeout).

var t0 = time.Date(2025, 3, 1, 14, 0, 0, 0, time.UTC)

func at(ms int64) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func atp(ms int64) *time.Time { t := at(ms); return &t }

const fixturePrompt = "Desenvolva um script didático em Python que demonstre as estruturas de dados básicas: " +
	"listas, tuplas, dicionários, conjuntos, pilhas e filas.\n\n" +
	"Para cada estrutura:\n" +
	"- explique em comentários quando usá-la;\n" +
	"- mostre as operações principais (inserir, remover, buscar) com `print`;\n" +
	"- inclua a complexidade de tempo de cada operação.\n\n" +
	"O script deve rodar sem dependências externas e terminar em menos de um segundo. Use nomes de " +
	"variáveis em português e mantenha cada seção curta o bastante para caber em um slide de aula, " +
	"porque este material será projetado em sala para turmas do primeiro semestre.\n"

// xss is model output that must stay text in every handout.
const xss = "</script><script>alert(1)</script>"

const codeGemini = `#!/usr/bin/env python3
"""Pilha (stack) e fila (queue) em Python."""
from collections import deque


def main():
    pilha = [1, 2, 3]
    pilha.append(4)  # O(1)
    print("pilha:", pilha, "topo:", pilha[-1])
    fila = deque(["a", "b"])
    fila.append("c")  # O(1)
    print("fila:", list(fila), "frente:", fila[0])
    print("` + xss + `")


if __name__ == "__main__":
    main()
`

const stdoutGemini = "pilha: [1, 2, 3, 4] topo: 4\nfila: ['a', 'b', 'c'] frente: a\n" + xss + "\n"

const codeClaude1 = `def media(valores):
    return sum(valores) / len(valores)


print("média:", media([]))
`

const stderrClaude1 = `Traceback (most recent call last):
  File "/tmp/lf/main.py", line 5, in <module>
    print("média:", media([]))
                    ^^^^^^^^^
  File "/tmp/lf/main.py", line 2, in media
    return sum(valores) / len(valores)
           ~~~~~~~~~~~~~^~~~~~~~~~~~~~
ZeroDivisionError: division by zero
`

const reflectionClaude = "The list passed to `media` is empty, so `len(valores)` is 0 and the division fails.\n\n" +
	"Guard the empty case (return **None**) before dividing. " + xss

const codeClaude2 = "import sys\n\n\ndef media(valores):\n\tif not valores:\n\t\tprint(\"aviso: lista vazia\", file=sys.stderr)\n" +
	"\t\treturn None\n\treturn sum(valores) / len(valores)\n\n\nprint(\"média:\", media([]))\nprint(\"média:\", media([1, 2, 3]))\n"

const codeOllama1 = "doc = \"\"\"Use ```python fences``` and ````four```` too\"\"\"\nprint(doc)\nprint(tamanho)\n"

const codeOllama3 = "import time\n\nn = 0\nwhile True:\n    n += 1\n    print('tick', n, flush=True)\n    time.sleep(0.2)\n"

func ticks(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "tick %d\n", i)
	}
	return b.String()
}

func ev(kind event.Kind, run string, seq int64, ms int64, payload any) event.Event {
	e := event.New(kind, payload)
	e.RunID, e.Seq, e.TS = run, seq, at(ms)
	return e
}

func fixture() *Bundle {
	runs := []store.Run{
		{ID: "run-gemini", SessionID: "ses-1", Provider: "gemini-api", Model: "gemini-2.5-flash", Status: "success",
			MaxIterations: 5, Reflect: true, Language: "python", Iterations: 1, FinalCode: codeGemini,
			InputTokens: 812, OutputTokens: 356, CostUSD: 0.00042, StartedAt: at(1000), FinishedAt: atp(8400), DurationMS: 7400},
		{ID: "run-claude", SessionID: "ses-1", Provider: "claude", Model: "claude-sonnet-4-5", Status: "success",
			MaxIterations: 5, Reflect: true, Language: "python", Iterations: 2, FinalCode: codeClaude2,
			InputTokens: 2140, OutputTokens: 988, CostUSD: 0.0213, StartedAt: at(1010), FinishedAt: atp(16210), DurationMS: 15200},
		{ID: "run-ollama", SessionID: "ses-1", Provider: "ollama", Model: "qwen2.5-coder:7b", Stdin: "lista\n3\n", Status: "limit_reached",
			MaxIterations: 3, Reflect: true, Language: "python", Iterations: 3, FinalCode: codeOllama3,
			StartedAt: at(1020), FinishedAt: atp(126020), DurationMS: 125000},
	}
	return &Bundle{
		Format:   FormatName,
		Version:  Version,
		Exported: time.Date(2025, 3, 2, 9, 30, 0, 0, time.UTC),
		Session: store.Session{ID: "ses-1", Title: "Estruturas de dados em Python", Prompt: fixturePrompt,
			Mode: "script", Kind: event.ModeScript, Workdir: "/home/prof/aulas", CreatedAt: t0, UpdatedAt: at(126020)},
		Runs: runs,
		Iterations: map[string][]store.Iteration{
			"run-gemini": {
				{RunID: "run-gemini", N: 1, Code: codeGemini, Content: "```python\n" + codeGemini + "```", ExecStatus: "ok",
					Stdout: stdoutGemini, ExecMS: 41, Isolation: "process", Status: "success", Summary: "ran cleanly"},
			},
			"run-claude": {
				{RunID: "run-claude", N: 1, Code: codeClaude1, Content: "```python\n" + codeClaude1 + "```", ExecStatus: "error",
					ExitCode: 1, Stderr: stderrClaude1, ExecMS: 38, Isolation: "process", Reflection: reflectionClaude,
					Status: "error", Summary: "exit 1: ZeroDivisionError: division by zero"},
				{RunID: "run-claude", N: 2, Code: codeClaude2, Content: "```python\n" + codeClaude2 + "```", ExecStatus: "ok",
					Stdout: "média: None\nmédia: 2.0\n", Stderr: "aviso: lista vazia\n", ExecMS: 40, Isolation: "process",
					Status: "success", Summary: "ran cleanly"},
			},
			"run-ollama": {
				{RunID: "run-ollama", N: 1, Code: codeOllama1, ExecStatus: "error", ExitCode: 1,
					Stdout: "Use ```python fences``` and ````four```` too\n",
					Stderr: "Traceback (most recent call last):\n  File \"/tmp/lf/main.py\", line 3, in <module>\n    print(tamanho)\n" +
						"          ^^^^^^^\nNameError: name 'tamanho' is not defined\n",
					Reflection: "`tamanho` is never defined. Define it before printing, or print `len(doc)`.",
					Status:     "error", Summary: "exit 1: NameError: name 'tamanho' is not defined"},
				{RunID: "run-ollama", N: 2, Content: "Sure! Use a dictionary to count the words.\nThen print the result.",
					Status: "error", Summary: "unusable answer: no fenced python block"},
				{RunID: "run-ollama", N: 3, Code: codeOllama3, ExecStatus: "timeout", ExitCode: -1,
					Stdout: ticks(250), Stderr: "\x1b[31mKilled\x1b[0m after 30s\r\n", Truncated: true, ExecMS: 30000,
					Isolation: "process", Status: "error", Summary: "timed out after 30s"},
			},
		},
		Messages: map[string][]store.Message{
			"run-claude": {
				{RunID: "run-claude", Seq: 1, Role: "user", Content: fixturePrompt, CreatedAt: at(1010)},
				{RunID: "run-claude", Seq: 2, Role: "assistant", Content: "```python\n" + codeClaude1 + "```", CreatedAt: at(5000)},
				{RunID: "run-claude", Seq: 3, Role: "user", Content: "The program failed: exit 1", CreatedAt: at(5100)},
				{RunID: "run-claude", Seq: 4, Role: "assistant", Content: "```python\n" + codeClaude2 + "```", CreatedAt: at(15000)},
			},
		},
		Events: map[string][]event.Event{
			"run-gemini": {
				ev(event.RunStarted, "run-gemini", 1, 1000, event.RunStartedPayload{SessionID: "ses-1", Provider: "gemini-api",
					Model: "gemini-2.5-flash", Prompt: fixturePrompt, MaxIterations: 5, Reflect: true, Language: "python", Mode: "script"}),
				ev(event.Token, "run-gemini", 2, 1500, event.TokenPayload{Iteration: 1, Phase: event.PhaseGenerate, Text: "```py"}),
				ev(event.RunFinished, "run-gemini", 3, 8400, event.RunFinishedPayload{Status: "success", Iterations: 1,
					FinalCode: codeGemini, InputTokens: 812, OutputTokens: 356, DurationMS: 7400}),
			},
			"run-claude": {
				ev(event.Reflection, "run-claude", 7, 6000, event.ReflectionPayload{Iteration: 1, Text: reflectionClaude}),
			},
		},
	}
}
