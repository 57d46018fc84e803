// The words of tests that judge a run (backend/judge): the Tests panel of
// the run form, the ✓/✗ row of an iteration, the comparison's and the
// statistics' columns, in English and Portuguese. en.ts and pt.ts carry them
// as strings.tests; kept apart so the tables stay easy to merge.

import type { Verdict } from '../api/gen/event'

/** The parameters of an error, by name (backend: service.Code). */
type P = Record<string, string>

export const testsEn = {
  panel: {
    title: 'Tests',
    hint: 'Optional. YAML: each test gives stdin and the expected output (match: exact, whitespace or number with a tolerance), or Python assertions (assert:) run against the program imported as `solution`. hidden: true shows the student and the model only the verdict. With tests, a run succeeds when every test passes.',
    placeholder: 'tests:\n  - name: small numbers\n    stdin: "2 3"\n    expected: "5"\n  - name: negatives\n    stdin: "-2 -3"\n    expected: "-5"\n    hidden: true',
    count: (n: number, hidden: number) => `${n} ${n === 1 ? 'test' : 'tests'}${hidden > 0 ? `, ${hidden} hidden` : ''}`,
    clear: 'Clear',
    show: 'Tests',
  },
  row: {
    title: 'Tests',
    passed: (p: number, t: number) => `${p}/${t} passed`,
    test: (i: number) => `Test ${i}`,
    hiddenNote: 'A hidden test: only its verdict is shown.',
    hiddenFromStudents: 'A hidden test: students and the model see only its verdict.',
    input: 'Input (stdin)',
    code: 'Test code',
    expected: 'Expected output',
    actual: 'Actual output',
    diff: 'Difference (− expected, + actual)',
    detail: 'What happened',
  },
  verdict: {
    passed: 'passed',
    wrong_answer: 'wrong answer',
    runtime_error: 'runtime error',
    time_limit: 'time limit exceeded',
    memory_limit: 'memory limit exceeded',
  } satisfies Record<Verdict, string>,
  column: 'Tests passed',
  errors: {
    'request.tests': (p: P) => (p.test && p.test !== '0' ? `Test ${p.test}: ${p.detail}` : `The tests: ${p.detail}`),
  },
}

export type TestsStrings = typeof testsEn

export const testsPt: TestsStrings = {
  panel: {
    title: 'Testes',
    hint: 'Opcional. Em YAML: cada teste dá a entrada (stdin) e a saída esperada (match: exact, whitespace ou number com tolerância), ou asserções em Python (assert:) executadas com o programa importado como `solution`. hidden: true mostra ao aluno e ao modelo só o veredito. Com testes, uma execução dá certo quando todos passam.',
    placeholder: 'tests:\n  - name: números pequenos\n    stdin: "2 3"\n    expected: "5"\n  - name: negativos\n    stdin: "-2 -3"\n    expected: "-5"\n    hidden: true',
    count: (n: number, hidden: number) => `${n} ${n === 1 ? 'teste' : 'testes'}${hidden > 0 ? `, ${hidden} ${hidden === 1 ? 'oculto' : 'ocultos'}` : ''}`,
    clear: 'Limpar',
    show: 'Testes',
  },
  row: {
    title: 'Testes',
    passed: (p: number, t: number) => `${p}/${t} passaram`,
    test: (i: number) => `Teste ${i}`,
    hiddenNote: 'Um teste oculto: só o veredito é mostrado.',
    hiddenFromStudents: 'Um teste oculto: alunos e o modelo veem só o veredito.',
    input: 'Entrada (stdin)',
    code: 'Código do teste',
    expected: 'Saída esperada',
    actual: 'Saída obtida',
    diff: 'Diferença (− esperado, + obtido)',
    detail: 'O que aconteceu',
  },
  verdict: {
    passed: 'passou',
    wrong_answer: 'resposta errada',
    runtime_error: 'erro de execução',
    time_limit: 'tempo limite excedido',
    memory_limit: 'limite de memória excedido',
  },
  column: 'Testes aprovados',
  errors: {
    'request.tests': (p: P) => (p.test && p.test !== '0' ? `Teste ${p.test}: ${p.detail}` : `Os testes: ${p.detail}`),
  },
}

/** countTests is how many tests a YAML text holds and how many are hidden, for the panel's label: a count of list items, not a parse (the server checks the text). */
export function countTests(yaml: string): { n: number; hidden: number } {
  let n = 0
  let hidden = 0
  for (const line of yaml.split('\n')) {
    if (/^\s*-\s+\S/.test(line) || /^\s*-\s*$/.test(line)) n++
    if (/(^|[\s{,])hidden:\s*true\b/.test(line)) hidden++
  }
  return { n, hidden }
}
