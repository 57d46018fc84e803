// The state of one run as the UI shows it, and the pure functions that build
// it: applyEvent folds the live event stream, fromStored rebuilds a finished
// run from the history. Both produce the same shape, so one view renders a
// live run and a replay alike.

import type { RunEvent, RunStatus, StoredIteration, StoredRun, StreamMessage } from '../api'

/** Where an iteration is: its outcome once iteration_done arrived. */
export type IterationPhase = 'generating' | 'executing' | 'success' | 'error'

export interface ExecResult {
  status: string
  exitCode: number
  signal?: string
  stdout: string
  stderr: string
  truncated: boolean
  durationMs: number
  isolation: string
  description: string
  protections?: Record<string, boolean>
  warnings?: string[]
}

export interface IterationView {
  n: number
  phase: IterationPhase
  /** Generation text as streamed (or the stored answer). */
  generation: string
  /** Reflection text as streamed (or the stored reflection). */
  reflection: string
  /** Reflection tokens are streaming (it comes after a failed iteration_done). */
  reflecting: boolean
  code?: string
  language?: string
  formatError?: string
  exec?: ExecResult
  summary?: string
  inputTokens: number
  outputTokens: number
  generationMs?: number
}

export type RunViewStatus = 'starting' | RunStatus

export interface LogLine {
  level: string
  message: string
}

export interface RunState {
  runId: string
  sessionId: string
  provider: string
  model: string
  prompt: string
  maxIterations: number
  reflect: boolean
  language: string
  status: RunViewStatus
  iterations: IterationView[]
  finalCode: string
  error: string
  inputTokens: number
  outputTokens: number
  /** ISO time of run_started (or the stored start). */
  startedAt?: string
  finishedAt?: string
  durationMs?: number
  logs: LogLine[]
  lastSeq: number
  /** Set when the server refused the subscription (e.g. unknown run). */
  streamError?: string
  /** true once Stop was pressed, until run_finished arrives. */
  cancelling: boolean
  cancelError?: string
  /** Rebuilt from the history rather than streamed. */
  fromHistory: boolean
}

export const TERMINAL: ReadonlySet<string> = new Set(['success', 'limit_reached', 'error', 'cancelled', 'interrupted'])

export function isFinished(r: Pick<RunState, 'status'>): boolean {
  return TERMINAL.has(r.status)
}

export function newRun(init: Partial<RunState> & { runId: string }): RunState {
  return {
    sessionId: '',
    provider: '',
    model: '',
    prompt: '',
    maxIterations: 0,
    reflect: true,
    language: 'python',
    status: 'starting',
    iterations: [],
    finalCode: '',
    error: '',
    inputTokens: 0,
    outputTokens: 0,
    logs: [],
    lastSeq: 0,
    cancelling: false,
    fromHistory: false,
    ...init,
  }
}

function emptyIteration(n: number): IterationView {
  return { n, phase: 'generating', generation: '', reflection: '', reflecting: false, inputTokens: 0, outputTokens: 0 }
}

/** withIteration returns run with iteration n replaced by fn(it) (created if missing). */
function withIteration(run: RunState, n: number, fn: (it: IterationView) => IterationView): RunState {
  const i = run.iterations.findIndex((it) => it.n === n)
  const iterations = run.iterations.slice()
  if (i < 0) {
    iterations.push(fn(emptyIteration(n)))
    iterations.sort((a, b) => a.n - b.n)
  } else {
    iterations[i] = fn(iterations[i])
  }
  return { ...run, iterations }
}

/** applyEvent folds one message into the run; it never mutates its input. */
export function applyEvent(run: RunState, m: StreamMessage): RunState {
  if (m.type === 'error') return { ...run, streamError: m.payload?.message || 'the server refused to stream this run' }
  const e = m as RunEvent
  if (e.seq <= run.lastSeq) return run // a duplicate; the client filters these too
  run = { ...run, lastSeq: e.seq }
  switch (e.type) {
    case 'run_started': {
      const p = e.payload
      return {
        ...run,
        sessionId: p.session_id || run.sessionId,
        provider: p.provider || run.provider,
        model: p.model || run.model,
        prompt: p.prompt,
        maxIterations: p.max_iterations,
        reflect: p.reflect,
        language: p.language || run.language,
        status: isFinished(run) ? run.status : 'running',
        startedAt: e.ts,
      }
    }
    case 'iteration_started':
      return withIteration(run, e.payload.iteration, (it) => it)
    case 'token': {
      const p = e.payload
      return withIteration(run, p.iteration, (it) =>
        p.phase === 'reflect'
          ? { ...it, reflecting: true, reflection: it.reflection + p.text }
          : { ...it, generation: it.generation + p.text },
      )
    }
    case 'generated': {
      const p = e.payload
      run = { ...run, inputTokens: run.inputTokens + (p.input_tokens ?? 0), outputTokens: run.outputTokens + (p.output_tokens ?? 0) }
      return withIteration(run, p.iteration, (it) => ({
        ...it,
        // The final answer wins over the streamed deltas (they may be coalesced).
        generation: p.content || it.generation,
        code: p.code,
        language: p.language,
        formatError: p.format_error || undefined,
        inputTokens: p.input_tokens ?? 0,
        outputTokens: p.output_tokens ?? 0,
        generationMs: p.duration_ms,
      }))
    }
    case 'exec_started':
      return withIteration(run, e.payload.iteration, (it) => ({ ...it, phase: 'executing' }))
    case 'exec_finished': {
      const p = e.payload
      return withIteration(run, p.iteration, (it) => ({
        ...it,
        exec: {
          status: p.status,
          exitCode: p.exit_code,
          signal: p.signal || undefined,
          stdout: p.stdout ?? '',
          stderr: p.stderr ?? '',
          truncated: p.truncated,
          durationMs: p.duration_ms,
          isolation: p.isolation,
          description: p.description,
          protections: p.protections,
          warnings: p.warnings,
        },
      }))
    }
    case 'reflection':
      return withIteration(run, e.payload.iteration, (it) => ({ ...it, reflecting: false, reflection: e.payload.text || it.reflection }))
    case 'iteration_done': {
      const p = e.payload
      return withIteration(run, p.iteration, (it) => ({
        ...it,
        phase: p.status === 'success' ? 'success' : 'error',
        summary: p.summary,
      }))
    }
    case 'run_finished': {
      const p = e.payload
      return {
        ...run,
        status: p.status as RunStatus,
        finalCode: p.final_code ?? '',
        error: p.error ?? '',
        inputTokens: p.input_tokens || run.inputTokens,
        outputTokens: p.output_tokens || run.outputTokens,
        durationMs: p.duration_ms,
        finishedAt: e.ts,
        cancelling: false,
        iterations: run.iterations.map((it) => (it.reflecting ? { ...it, reflecting: false } : it)),
      }
    }
    case 'log':
      return { ...run, logs: [...run.logs, { level: e.payload.level, message: e.payload.message }] }
    default:
      return run // an event kind this UI does not know yet
  }
}

/** fromStored rebuilds a run from the history (GET /api/sessions/{id}). */
export function fromStored(r: StoredRun, its: StoredIteration[] | null | undefined, prompt: string): RunState {
  const iterations: IterationView[] = (its ?? [])
    .slice()
    .sort((a, b) => a.n - b.n)
    .map((s) => ({
      n: s.n,
      phase: s.status === 'success' ? 'success' : s.status === 'error' ? 'error' : 'generating',
      generation: s.content ?? '',
      reflection: s.reflection ?? '',
      reflecting: false,
      code: s.code || undefined,
      language: r.language,
      exec: s.exec_status
        ? {
            status: s.exec_status,
            exitCode: s.exit_code,
            stdout: s.stdout ?? '',
            stderr: s.stderr ?? '',
            truncated: s.truncated,
            durationMs: s.exec_ms,
            isolation: s.isolation,
            description: '',
          }
        : undefined,
      summary: s.summary || undefined,
      inputTokens: 0,
      outputTokens: 0,
    }))
  return newRun({
    runId: r.id,
    sessionId: r.session_id,
    provider: r.provider,
    model: r.model,
    prompt,
    maxIterations: r.max_iterations,
    reflect: r.reflect,
    language: r.language,
    status: r.status as RunStatus,
    iterations,
    finalCode: r.final_code ?? '',
    error: r.error ?? '',
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    startedAt: r.started_at,
    finishedAt: r.finished_at ?? undefined,
    durationMs: r.duration_ms,
    fromHistory: true,
  })
}
