// The classroom's learning path (the instructor reads each student's runs)
// and the notice that tells students so, in English and Portuguese.
// class.ts carries them as strings.classroom.path.

export const pathEn = {
  /** Shown to students: on the join page and above their run form. */
  seen: {
    join: 'Your instructor can see your runs: your prompts, the code the model wrote, its errors and the model’s answers.',
    app: 'Your instructor can see your runs (prompts, code, errors and the model’s answers).',
  },
  tabRun: 'Current run',
  tabPath: 'Learning path',
  title: (name: string) => `${name}’s learning path`,
  loading: 'Loading the learning path…',
  failed: 'Could not load the learning path',
  refresh: 'Refresh',
  empty: 'No runs yet.',
  totals: (runs: number, tokensIn: string, tokensOut: string) => `${runs} run${runs === 1 ? '' : 's'} · ${tokensIn} tokens in, ${tokensOut} out`,
  assignments: 'By assignment',
  noAssignment: 'No assignment',
  runs: (n: number) => `${n} run${n === 1 ? '' : 's'}`,
  workingAfter: (d: string) => `working program after ${d}`,
  notWorking: 'no working program yet',
  prompt: 'Prompt',
  iteration: (n: number) => `Iteration ${n}`,
  tests: (passed: number, total: number) => `${passed}/${total} tests passed`,
  reflection: 'Reflection',
  code: 'Code',
  tokens: (tokensIn: string, tokensOut: string) => `${tokensIn} in / ${tokensOut} out tokens`,
  took: (d: string) => `took ${d}`,
  noIterations: 'It ended before its first iteration.',
}

export type PathStrings = typeof pathEn

export const pathPt: PathStrings = {
  seen: {
    join: 'Seu professor pode ver suas execuções: seus prompts, o código que o modelo escreveu, os erros e as respostas do modelo.',
    app: 'Seu professor pode ver suas execuções (prompts, código, erros e as respostas do modelo).',
  },
  tabRun: 'Execução atual',
  tabPath: 'Trajetória',
  title: (name: string) => `Trajetória de ${name}`,
  loading: 'Carregando a trajetória…',
  failed: 'Não foi possível carregar a trajetória',
  refresh: 'Atualizar',
  empty: 'Nenhuma execução ainda.',
  totals: (runs: number, tokensIn: string, tokensOut: string) => `${runs} ${runs === 1 ? 'execução' : 'execuções'} · ${tokensIn} tokens de entrada, ${tokensOut} de saída`,
  assignments: 'Por tarefa',
  noAssignment: 'Sem tarefa',
  runs: (n: number) => `${n} ${n === 1 ? 'execução' : 'execuções'}`,
  workingAfter: (d: string) => `programa funcionando após ${d}`,
  notWorking: 'ainda sem programa que funcione',
  prompt: 'Prompt',
  iteration: (n: number) => `Iteração ${n}`,
  tests: (passed: number, total: number) => `${passed}/${total} testes aprovados`,
  reflection: 'Reflexão',
  code: 'Código',
  tokens: (tokensIn: string, tokensOut: string) => `tokens: ${tokensIn} de entrada / ${tokensOut} de saída`,
  took: (d: string) => `levou ${d}`,
  noIterations: 'Terminou antes da primeira iteração.',
}
