// A scriptable Api for store and component tests: every method is a vi.fn
// with a sensible default, and the event stream is driven by the test.

import { vi } from 'vitest'
import type { Api, ConnectionState, EventStream } from '../api'
import type { ClassMessage } from '../api/class'
import type { Defaults, FolderListing, Preset, ProviderStatus, RunEvent, RunStatus, SessionDetail, SessionSummary, StreamMessage } from '../api/types'

export class FakeEvents implements EventStream {
  state: ConnectionState = { status: 'idle' }
  listeners = new Map<string, Set<(m: StreamMessage) => void>>()
  subscribed: Array<{ runId: string; after: number }> = []
  unsubscribed: string[] = []
  classListeners = new Set<(m: ClassMessage) => void>()
  private stateListeners = new Set<(s: ConnectionState) => void>()

  subscribe(runId: string, after: number, onMessage: (m: StreamMessage) => void): () => void {
    this.subscribed.push({ runId, after })
    let set = this.listeners.get(runId)
    if (!set) this.listeners.set(runId, (set = new Set()))
    set.add(onMessage)
    return () => {
      set.delete(onMessage)
      this.unsubscribed.push(runId)
    }
  }
  subscribeClass(onMessage: (m: ClassMessage) => void): () => void {
    this.classListeners.add(onMessage)
    return () => this.classListeners.delete(onMessage)
  }
  emitClass(m: ClassMessage) {
    for (const l of [...this.classListeners]) l(m)
  }
  connection(): ConnectionState {
    return this.state
  }
  onConnection(listener: (s: ConnectionState) => void): () => void {
    this.stateListeners.add(listener)
    return () => this.stateListeners.delete(listener)
  }
  setState(s: ConnectionState) {
    this.state = s
    for (const l of this.stateListeners) l(s)
  }
  emit(m: StreamMessage) {
    for (const l of this.listeners.get(m.run_id) ?? []) l(m)
  }
}

export const readyProvider: ProviderStatus = { name: 'fake', kind: 'openai', model: 'fake-model', default: true, available: true, timeout_seconds: 600 }
export const missingKeyProvider: ProviderStatus = {
  name: 'openai',
  kind: 'openai',
  model: 'gpt-4o-mini',
  api_key_env: 'OPENAI_API_KEY',
  default: false,
  available: false,
  reason: 'no API key: set OPENAI_API_KEY in the environment or in a .env file',
  timeout_seconds: 600,
}
export const presets: Preset[] = [
  { id: 'data-structures-pt', title: 'Estruturas de dados (pt)', prompt: 'Desenvolva um script didático' },
  { id: 'data-structures-en', title: 'Data structures (en)', prompt: 'Write a didactic Python script' },
]

type Optional = 'chooseWorkdir' | 'folders' | 'exportURL' | 'fetchExport' | 'saveExport' | 'joinClass' | 'fetchClassExport'
export type FakeApi = Api & {
  [K in Exclude<keyof Api, 'face' | 'events' | Optional>]: ReturnType<typeof vi.fn>
} & { events: FakeEvents } & { [K in Optional]: ReturnType<typeof vi.fn> | null }

/**
 * A small folder tree for the web folder picker: /home/ana holds aulas and
 * notas, aulas holds turma-1; "" starts at /home/ana.
 */
export const folderTree: Record<string, string[]> = {
  '/': ['home'],
  '/home': ['ana'],
  '/home/ana': ['aulas', 'notas'],
  '/home/ana/aulas': ['turma-1'],
  '/home/ana/aulas/turma-1': [],
  '/home/ana/notas': [],
}

export function fakeFolders(path: string): FolderListing {
  const p = path || '/home/ana'
  const names = folderTree[p]
  if (!names) throw new Error(`cannot list ${p}: no such file or directory`)
  const parent = p === '/' ? '' : p.slice(0, p.lastIndexOf('/')) || '/'
  return { path: p, parent, folders: names.map((name) => ({ name, path: p === '/' ? `/${name}` : `${p}/${name}` })) }
}

export const defaults: Defaults = {
  provider: 'fake',
  max_iterations: 3,
  max_iterations_limit: 50,
  reflect: false,
  timeout_seconds: 20,
  language: 'python',
  limits: { memory_bytes: 1 << 30, processes: 128, output_bytes: 8 << 20, file_size_bytes: 32 << 20, open_files: 256, cpus: 1 },
  isolation: 'namespace+cgroup',
  network_isolated: true,
  command_timeout_seconds: 300,
  commands_sandboxed: true,
  max_prompt_bytes: 256 << 10,
}

export function fakeApi(face: 'web' | 'desktop' = 'web'): FakeApi {
  const events = new FakeEvents()
  let runs = 0
  return {
    face,
    events,
    // Named methods are what stores call; a test of api.call fakes it itself.
    // Me answers as `loopforge serve` does (the instructor, no class); class tests fake the rest (fakeClass).
    call: vi.fn().mockImplementation(async (name: string) => {
      if (name === 'Me') return { role: 'instructor' }
      throw new Error(`fakeApi: call ${name} is not faked; fake the named method`)
    }),
    version: vi.fn().mockResolvedValue('0.1.0'),
    providers: vi.fn().mockResolvedValue([readyProvider, missingKeyProvider]),
    presets: vi.fn().mockResolvedValue(presets),
    defaults: vi.fn().mockResolvedValue(defaults),
    startCompare: vi.fn().mockImplementation(async (req: { providers: string[] }) => {
      const session_id = `cmp-${++runs}`
      return { session_id, runs: req.providers.map((p, i) => ({ run_id: `${session_id}-r${i + 1}`, session_id, provider: p, model: `${p}-model` })) }
    }),
    comparison: vi.fn().mockResolvedValue([]),
    stats: vi.fn().mockResolvedValue({ total: { runs: 0, successes: 0, failures: 0, cancelled: 0, exec_timeouts: 0, success_rate: 0, avg_duration_ms: 0, median_duration_ms: 0, avg_iterations_to_success: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 }, groups: [] }),
    exportURL:
      face === 'web'
        ? vi.fn().mockImplementation((id: string, f: string, r?: string, l?: string) => `/api/sessions/${id}/export?format=${f}${r ? `&run=${r}` : ''}${l ? `&lang=${l}` : ''}`)
        : null,
    fetchExport:
      face === 'web'
        ? vi.fn().mockImplementation(async (id: string, f: string) => ({ name: `${id}.${f}`, data: new Blob(['print(1)\n']) }))
        : null,
    saveExport: face === 'desktop' ? vi.fn().mockResolvedValue('/home/me/saved.py') : null,
    joinClass: face === 'web' ? vi.fn().mockRejectedValue(new Error('fakeApi: joinClass is not faked')) : null,
    fetchClassExport: face === 'web' ? vi.fn().mockImplementation(async (f: string) => ({ name: `class.${f}`, data: new Blob(['student,runs\n']) })) : null,
    startRun: vi.fn().mockImplementation(async (req: { session_id?: string; provider?: string }) => {
      runs++
      return { run_id: `run-${runs}`, session_id: req.session_id ?? `sess-${runs}`, provider: req.provider ?? 'fake', model: 'fake-model' }
    }),
    cancelRun: vi.fn().mockResolvedValue(undefined),
    sessions: vi.fn().mockResolvedValue([] as SessionSummary[]),
    session: vi.fn().mockRejectedValue(new Error('no such session')),
    deleteSession: vi.fn().mockResolvedValue(undefined),
    workdir: vi.fn().mockResolvedValue(''),
    setWorkdir: vi.fn().mockImplementation(async (p: string) => p),
    chooseWorkdir: face === 'desktop' ? vi.fn().mockResolvedValue('/chosen') : null,
    folders: face === 'web' ? vi.fn().mockImplementation(async (p: string) => fakeFolders(p)) : null,
    onWorkdirDropped: vi.fn().mockReturnValue(() => {}),
  } as unknown as FakeApi
}

// ---- event builders ----

let ts = Date.parse('2026-11-21T10:00:00Z')
type PayloadOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>['payload']
function env<T extends RunEvent['type']>(type: T, runId: string, seq: number, payload: PayloadOf<T>): RunEvent {
  ts += 100
  return { type, run_id: runId, seq, ts: new Date(ts).toISOString(), payload } as RunEvent
}

/** A whole run: iteration 1 fails (division by zero), reflection, iteration 2 succeeds. */
export function twoIterationRun(runId = 'run-1'): RunEvent[] {
  let seq = 0
  const e = <T extends RunEvent['type']>(type: T, p: PayloadOf<T>) => env<T>(type, runId, ++seq, p)
  return [
    e('run_started', { session_id: 'sess-1', provider: 'fake', model: 'fake-model', prompt: 'greet', max_iterations: 5, reflect: true, language: 'python', mode: 'script' }),
    e('iteration_started', { iteration: 1 }),
    e('token', { iteration: 1, phase: 'generate', text: 'Here ' }),
    e('token', { iteration: 1, phase: 'generate', text: 'it is.' }),
    e('generated', { iteration: 1, content: 'Here it is.', code: 'print(1/0)\n', language: 'python', input_tokens: 100, output_tokens: 20, duration_ms: 800 }),
    e('exec_started', { iteration: 1 }),
    e('exec_finished', {
      iteration: 1,
      status: 'error',
      exit_code: 1,
      stdout: '',
      stderr: 'ZeroDivisionError: division by zero\n',
      truncated: false,
      duration_ms: 21,
      isolation: 'basic',
      description: 'exit 1: ZeroDivisionError: division by zero',
      protections: { files: false, network: false, processes: false, memory: false, signals: true },
      warnings: ['network is not isolated: install bubblewrap'],
    }),
    e('iteration_done', { iteration: 1, status: 'error', summary: 'exit 1: ZeroDivisionError: division by zero' }),
    e('token', { iteration: 1, phase: 'reflect', text: 'It divides ' }),
    e('token', { iteration: 1, phase: 'reflect', text: 'by zero.' }),
    e('reflection', { iteration: 1, text: 'It divides by zero.' }),
    e('iteration_started', { iteration: 2 }),
    e('token', { iteration: 2, phase: 'generate', text: 'Fixed.' }),
    e('generated', { iteration: 2, content: 'Fixed.', code: "print('hi')\n", language: 'python', input_tokens: 150, output_tokens: 25, duration_ms: 700 }),
    e('exec_started', { iteration: 2 }),
    e('exec_finished', { iteration: 2, status: 'ok', exit_code: 0, stdout: 'hi\n', stderr: '', truncated: false, duration_ms: 18, isolation: 'basic', description: 'exit 0' }),
    e('iteration_done', { iteration: 2, status: 'success', summary: 'ran cleanly' }),
    e('run_finished', { status: 'success', iterations: 2, final_code: "print('hi')\n", input_tokens: 300, output_tokens: 60, duration_ms: 2500 }),
  ]
}

/**
 * A script run whose program prints while it runs and is stopped before it
 * ends: exec_output pieces (the stdout one capped), then — if stopped is
 * set — the killed exec_finished with what it printed, and run_finished.
 */
export function printingRun(runId = 'run-1', stopped = false): RunEvent[] {
  let seq = 0
  const e = <T extends RunEvent['type']>(type: T, p: PayloadOf<T>) => env<T>(type, runId, ++seq, p)
  const evs = [
    e('run_started', { session_id: 'sess-1', provider: 'fake', prompt: 'count slowly', max_iterations: 2, reflect: true, language: 'python', mode: 'script', stdin: 'Ada\n' }),
    e('iteration_started', { iteration: 1 }),
    e('generated', { iteration: 1, content: 'Counting.', code: "print(input())\n", language: 'python', duration_ms: 5 }),
    e('exec_started', { iteration: 1 }),
    e('exec_output', { iteration: 1, stream: 'stdout', text: 'tick 1\n' }),
    e('exec_output', { iteration: 1, stream: 'stderr', text: 'warning\n' }),
    e('exec_output', { iteration: 1, stream: 'stdout', text: 'tick 2\n', capped: true }),
  ]
  if (!stopped) return evs
  return [
    ...evs,
    e('exec_finished', { iteration: 1, status: 'killed', exit_code: -1, stdout: 'tick 1\ntick 2\ntick 3\n', stderr: 'warning\n', truncated: false, duration_ms: 900, isolation: 'basic', description: 'killed (cancelled)' }),
    e('run_finished', { status: 'cancelled', iterations: 1, final_code: "print(input())\n", error: 'cancelled by the user', input_tokens: 0, output_tokens: 0, duration_ms: 1000 }),
  ]
}

export const WS_DIFF = 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n'

/**
 * A whole workspace run: iteration 1 writes calc.py (and fails to read a
 * missing file), its validation fails; iteration 2 writes it again,
 * validation passes, the auditor approves, and the change is committed.
 */
export function workspaceRun(runId = 'run-1', opts: { allowNetwork?: boolean } = {}): RunEvent[] {
  let seq = 0
  const e = <T extends RunEvent['type']>(type: T, p: PayloadOf<T>) => env<T>(type, runId, ++seq, p)
  return [
    e('run_started', {
      session_id: 'sess-ws',
      provider: 'fake',
      model: 'fake-model',
      prompt: 'Fix add in calc.py',
      max_iterations: 3,
      reflect: true,
      language: 'python',
      mode: 'workspace',
      workdir: '/home/ana/calc',
      validate: ['python3 check.py'],
      auditor: 'fake',
      ...(opts.allowNetwork ? { allow_network: true } : {}),
    }),
    e('git', { action: 'branch', branch: 'loopforge/fix-add-in-calc-py-1a2b3c4d' }),
    e('iteration_started', { iteration: 1 }),
    e('tool_called', { iteration: 1, id: 'call_1', name: 'read_file', input: '{"path":"missing.py"}', output: 'error: open missing.py: no such file or directory', ok: false, duration_ms: 1 }),
    e('tool_called', {
      iteration: 1,
      id: 'call_2',
      name: 'write_file',
      input: JSON.stringify({ path: 'calc.py', content: 'def add(a, b):\n    return a * b\n' }),
      output: 'wrote calc.py (33 bytes)',
      ok: true,
      duration_ms: 2,
    }),
    e('token', { iteration: 1, phase: 'generate', text: 'I rewrote add.' }),
    e('generated', { iteration: 1, content: 'I rewrote add.', code: '', language: 'python', input_tokens: 200, output_tokens: 30, duration_ms: 900 }),
    e('validated', {
      iteration: 1,
      command: 'python3 check.py',
      exit_code: 1,
      passed: false,
      stdout: '',
      stderr: 'AssertionError: add(2, 3) returned 6\n',
      duration_ms: 45,
    }),
    e('iteration_done', { iteration: 1, status: 'error', summary: '`python3 check.py` exit 1' }),
    e('iteration_started', { iteration: 2 }),
    e('tool_called', {
      iteration: 2,
      id: 'call_3',
      name: 'write_file',
      input: JSON.stringify({ path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' }),
      output: 'wrote calc.py (33 bytes)',
      ok: true,
      duration_ms: 2,
    }),
    e('generated', { iteration: 2, content: 'Fixed: add adds.', code: '', language: 'python', input_tokens: 260, output_tokens: 25, duration_ms: 800 }),
    e('validated', { iteration: 2, command: 'python3 check.py', exit_code: 0, passed: true, stdout: 'ok\n', stderr: '', duration_ms: 40 }),
    e('token', { iteration: 2, phase: 'audit', text: '{"approved": tr' }),
    e('audited', { iteration: 2, approved: true, reasons: ['add now returns the sum', 'the tests are unchanged'] }),
    e('iteration_done', { iteration: 2, status: 'success', summary: 'validation passed' }),
    e('git', {
      action: 'commit',
      branch: 'loopforge/fix-add-in-calc-py-1a2b3c4d',
      commit: '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432',
      message: 'loopforge: Fix add in calc.py\n\nFixed: add adds.\n\nValidated by:\n  python3 check.py\nIterations: 2\n',
    }),
    e('git', { action: 'metadata', path: '.loopforge/runs/20261121T100000Z.json' }),
    e('run_finished', { status: 'success', iterations: 2, final_code: WS_DIFF, input_tokens: 520, output_tokens: 70, duration_ms: 4000 }),
  ]
}

/** A stored workspace session: its run as the iterations table keeps it (no tool calls, no validations). */
export function workspaceSessionDetail(): SessionDetail {
  const d = sessionDetail()
  d.id = 'sess-ws'
  d.title = 'Fix add in calc.py'
  d.prompt = 'Fix add in calc.py'
  d.mode = 'workspace'
  d.kind = 'workspace'
  d.workdir = '/home/ana/calc'
  const run = { ...d.runs![0], id: 'run-ws', session_id: 'sess-ws', final_code: WS_DIFF, max_iterations: 3 }
  d.runs = [run]
  d.iterations = {
    'run-ws': [
      { ...d.iterations!['run-old']![0], code: '', content: 'I rewrote add.', exec_status: '', reflection: '', summary: '`python3 check.py` exit 1' },
      { ...d.iterations!['run-old']![1], code: '', content: 'Fixed: add adds.', exec_status: '', summary: 'validation passed' },
    ],
  }
  return d
}

export function finished(
  runId: string,
  seq: number,
  status: RunStatus,
  error = '',
  errorKind?: string,
  errorCode?: string,
  errorParams?: Record<string, string>,
): RunEvent {
  return env('run_finished', runId, seq, {
    status,
    iterations: 1,
    final_code: '',
    error,
    ...(errorKind ? { error_kind: errorKind } : {}),
    ...(errorCode ? { error_code: errorCode, error_params: errorParams ?? {} } : {}),
    input_tokens: 0,
    output_tokens: 0,
    duration_ms: 1000,
  })
}

export function sessionDetail(): SessionDetail {
  return {
    id: 'sess-1',
    title: 'Print a greeting',
    prompt: 'Print a greeting',
    mode: 'script',
    kind: 'script',
    workdir: '',
    created_at: '2026-11-21T10:00:00Z',
    updated_at: '2026-11-21T10:01:00Z',
    runs: [
      {
        id: 'run-old',
        session_id: 'sess-1',
        provider: 'fake',
        model: 'fake-model',
        prompt: 'Print a greeting',
        status: 'success',
        max_iterations: 5,
        reflect: true,
        language: 'python',
        iterations: 2,
        final_code: "print('hi')\n",
        error: '',
        input_tokens: 300,
        output_tokens: 60,
        cost_usd: 0,
        started_at: '2026-11-21T10:00:00Z',
        finished_at: '2026-11-21T10:00:03Z',
        duration_ms: 3000,
      },
    ],
    iterations: {
      'run-old': [
        {
          run_id: 'run-old',
          n: 1,
          code: 'print(1/0)\n',
          content: 'Here it is.',
          exec_status: 'error',
          exit_code: 1,
          stdout: '',
          stderr: 'ZeroDivisionError: division by zero\n',
          truncated: false,
          exec_ms: 21,
          isolation: 'basic',
          reflection: 'It divides by zero.',
          status: 'error',
          summary: 'exit 1: ZeroDivisionError',
        },
        {
          run_id: 'run-old',
          n: 2,
          code: "print('hi')\n",
          content: 'Fixed.',
          exec_status: 'ok',
          exit_code: 0,
          stdout: 'hi\n',
          stderr: '',
          truncated: false,
          exec_ms: 18,
          isolation: 'basic',
          reflection: '',
          status: 'success',
          summary: 'ran cleanly',
        },
      ],
    },
    images: {
      'run-old': [{ run_id: 'run-old', iteration: 2, name: 'figure-1.png', mime: 'image/png', width: 64, height: 48, size: 120 }],
    },
  }
}

export function memoryStorage(): Storage {
  const m = new Map<string, string>()
  return {
    get length() {
      return m.size
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  }
}
