// The first-run panel's strings (components/run/FirstRun*.tsx): what a new user
// does when no provider is ready or no Python was found, in English and
// Portuguese. en.ts and pt.ts carry them as strings.firstRun; kept apart like
// class.ts.

/** An operating system as the server names it (Go's runtime.GOOS). */
export type OS = 'linux' | 'darwin' | 'windows'

/** One way to install Python: what to do, and the command when there is one. */
export interface Install {
  how: string
  command?: string
}

export const firstRunEn = {
  title: 'Welcome to loopforge',
  intro: 'One step before the first run: loopforge needs a model to write the code. None is ready on this computer yet; pick one of the two ways below, then press Check again.',
  introPython: 'One step before the first run: the code the models write runs in Python, and no Python was found on this computer.',
  keyTitle: 'Use a cloud model with an API key',
  /** Around the .env file's path: before it, after it. */
  keyIntro: ['Create the text file', 'with one line: the variable of the provider you have a key for, = and the key.'] as [string, string],
  keyExists: 'That file exists already: add the line to it.',
  keyNote: 'Keys stay on this computer: they are never written to the history or given to the generated code.',
  variable: 'Variable',
  provider: 'Provider',
  model: 'Model',
  configDir: 'Configuration folder',
  ollamaTitle: 'Or run a model on this computer with Ollama (free, no key)',
  ollamaSteps: {
    install: 'Install Ollama from ollama.com and start it.',
    pull: 'Download the model once (a few GB):',
    /** Around loopforge.yml's path: before it, after it. */
    config: ['To make it the default, write this line in', ':'] as [string, string],
  },
  ollamaHint: (url: string) => `loopforge finds it at ${url} as soon as it answers.`,
  pythonTitle: 'Install Python',
  pythonIntro: 'The generated programs run in Python 3, and no Python was found on this computer.',
  pythonOther: 'Generated code cannot run on this computer:',
  pythonWays: {
    linux: [
      { how: 'Debian or Ubuntu:', command: 'sudo apt install python3' },
      { how: 'Fedora:', command: 'sudo dnf install python3' },
    ],
    darwin: [
      { how: 'Apple’s developer tools include it:', command: 'xcode-select --install' },
      { how: 'or, with Homebrew:', command: 'brew install python' },
      { how: 'or the installer from python.org.' },
    ],
    windows: [
      { how: 'In a terminal:', command: 'winget install Python.Python.3.12' },
      { how: 'or the installer from python.org: tick “Add python.exe to PATH”.' },
    ],
  } satisfies Record<OS, Install[]>,
  pythonThen: 'Then press Check again (no restart needed).',
  check: 'Check again',
  checking: 'Checking…',
  checkHint: 'Check again reads the .env file and loopforge.yml anew: no restart needed.',
  stillNotReady: 'Checked: still nothing ready. Look at the file name and the variable, then check again.',
  checkFailed: 'Could not check again',
  anyway: 'Open the run form anyway',
  why: (n: number) => `Why each provider is not ready (${n})`,
}

export type FirstRunStrings = typeof firstRunEn

export const firstRunPt: FirstRunStrings = {
  title: 'Boas-vindas ao loopforge',
  intro: 'Falta um passo antes da primeira execução: o loopforge precisa de um modelo para escrever o código. Nenhum está pronto neste computador ainda; escolha um dos dois caminhos abaixo e depois clique em Verificar de novo.',
  introPython: 'Falta um passo antes da primeira execução: o código que os modelos escrevem roda em Python, e nenhum Python foi encontrado neste computador.',
  keyTitle: 'Usar um modelo na nuvem com uma chave de API',
  keyIntro: ['Crie o arquivo de texto', 'com uma linha: a variável do provedor de que você tem a chave, = e a chave.'],
  keyExists: 'Esse arquivo já existe: acrescente a linha a ele.',
  keyNote: 'As chaves ficam neste computador: nunca são gravadas no histórico nem passadas ao código gerado.',
  variable: 'Variável',
  provider: 'Provedor',
  model: 'Modelo',
  configDir: 'Pasta de configuração',
  ollamaTitle: 'Ou rode um modelo neste computador com o Ollama (gratuito, sem chave)',
  ollamaSteps: {
    install: 'Instale o Ollama de ollama.com e inicie-o.',
    pull: 'Baixe o modelo uma vez (alguns GB):',
    config: ['Para torná-lo o padrão, escreva esta linha em', ':'],
  },
  ollamaHint: (url: string) => `O loopforge o encontra em ${url} assim que ele responder.`,
  pythonTitle: 'Instale o Python',
  pythonIntro: 'Os programas gerados rodam em Python 3, e nenhum Python foi encontrado neste computador.',
  pythonOther: 'O código gerado não pode rodar neste computador:',
  pythonWays: {
    linux: [
      { how: 'Debian ou Ubuntu:', command: 'sudo apt install python3' },
      { how: 'Fedora:', command: 'sudo dnf install python3' },
    ],
    darwin: [
      { how: 'As ferramentas de desenvolvedor da Apple o incluem:', command: 'xcode-select --install' },
      { how: 'ou, com o Homebrew:', command: 'brew install python' },
      { how: 'ou o instalador de python.org.' },
    ],
    windows: [
      { how: 'Num terminal:', command: 'winget install Python.Python.3.12' },
      { how: 'ou o instalador de python.org: marque “Add python.exe to PATH”.' },
    ],
  },
  pythonThen: 'Depois clique em Verificar de novo (não é preciso reiniciar).',
  check: 'Verificar de novo',
  checking: 'Verificando…',
  checkHint: 'Verificar de novo lê outra vez o arquivo .env e o loopforge.yml: não é preciso reiniciar.',
  stillNotReady: 'Verificado: ainda nada pronto. Confira o nome do arquivo e a variável e verifique de novo.',
  checkFailed: 'Não foi possível verificar de novo',
  anyway: 'Abrir o formulário mesmo assim',
  why: (n: number) => `Por que cada provedor não está pronto (${n})`,
}
