// The state of one run as the UI shows it, and the pure functions that build
// it: applyEvent folds the live event stream, fromStored rebuilds a finished
// run from the history. Both produce the same shape, so one view renders a
// live run and a replay alike.

import type { ExecNote, ImageRef, ShownError, RunEvent, RunMode, RunStatus, SessionDetail, StoredImage, StoredIteration, StoredRun, StreamMessage } from '../api'
import type { TestsPayload } from '../api/gen/event'
import {
  RunStatusCancelled,
  RunStatusError,
  RunStatusInterrupted,
  RunStatusLimitReached,
  RunStatusRunning,
  RunStatusSuccess,
} from '../api/gen/event'

/** storedMode: the mode of a stored session's runs — its kind (a comparison has either). */
export function storedMode(detail: Pick<SessionDetail, 'kind'>): RunMode {
  return detail.kind === 'workspace' ? 'workspace' : 'script'
}

/**
 * Where an iteration is: its outcome once iteration_done arrived. Script
 * mode: generating → executing; workspace mode: generating → validating
 * (the commands run after the model's answer).
 */
export type IterationPhase = 'generating' | 'executing' | 'validating' | 'success' | 'error'

export interface ExecResult {
  status: string
  exitCode: number
  signal?: string
  stdout: string
  stderr: string
  truncated: boolean
  durationMs: number
  isolation: string
  /** How it ended, as data (worded by strings.execOutcome); absent for runs recorded before outcomes and in a history replay. */
  outcome?: ExecNote
  /** The same in the backend's English (the fallback). */
  description: string
  protections?: Record<string, boolean>
  /** What did not apply (worded by strings.execNote); warnings are their English, the fallback. */
  notes?: ExecNote[]
  warnings?: string[]
  /** The pictures the program left (figures, image files); fetched by run, iteration and name. */
  images: ImageRef[]
  /** Pictures left out, and why: as data, and in the backend's English (the fallback). */
  imageNotes?: ExecNote[]
  imagesSkipped: string[]
}

/**
 * What the running code printed so far (exec_output), per stream; capped
 * once a stream reached the live limit. exec_finished's output supersedes it.
 */
export interface LiveOutput {
  stdout: string
  stderr: string
  stdoutCapped: boolean
  stderrCapped: boolean
}

/** Workspace mode: one tool call of the model (tool_called). */
export interface ToolCallView {
  id?: string
  name: string
  /** The JSON arguments as sent by the model. */
  input: string
  output: string
  ok: boolean
  durationMs: number
}

/** Workspace mode: one validation command (validated). */
export interface ValidationView {
  command: string
  exitCode: number
  passed: boolean
  timedOut: boolean
  stdout: string
  stderr: string
  truncated: boolean
  durationMs: number
}

/** Workspace mode: the auditor's verdict (audited). */
export interface AuditView {
  approved: boolean
  reasons: string[]
}

/** Workspace mode: what happened in git, from the git events. */
export interface GitView {
  /** The feature branch (loopforge/<slug>). */
  branch?: string
  /** Set on success: the commit's hash and message. */
  commit?: string
  message?: string
  /** Set on failure: the changes were left uncommitted on the branch. */
  uncommitted: boolean
  /** The run metadata file, relative to the workdir. */
  metadata?: string
  /** In a comparison: the git worktree (absolute path) this provider worked in. */
  worktree?: string
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
  /** formatError's code and parameters (loop.Format*), to word it in the UI's language. */
  formatCode?: string
  formatParams?: Record<string, string>
  exec?: ExecResult
  /** How the run's tests judged this iteration's program (none: no tests, or not judged yet). */
  tests?: TestsPayload
  /** The output of the code while it runs (until exec_finished). */
  output?: LiveOutput
  summary?: string
  inputTokens: number
  outputTokens: number
  generationMs?: number
  /** Workspace mode: the tools the model called, in order. */
  tools: ToolCallView[]
  /** Workspace mode: the validation commands that ran, in order. */
  validations: ValidationView[]
  /** Workspace mode: the auditor's verdict. */
  audit?: AuditView
  /** The auditor's answer is streaming. */
  auditing: boolean
}

export type RunViewStatus = 'starting' | RunStatus

export interface LogLine {
  level: string
  /** The backend's English (and the words of a notice with no code: a provider's own). */
  message: string
  /** What loopforge said, as a code and parameters, worded by strings.noticeText. */
  code?: string
  params?: Record<string, string>
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
  mode: RunMode
  /** The user let this run's code reach the network. */
  allowNetwork: boolean
  /** What the run gave its code's standard input ("" = none). */
  stdin: string
  /** Workspace mode: the project folder, validation commands and auditor profile ("" = none). */
  workdir: string
  validate: string[]
  auditor: string
  git: GitView
  status: RunViewStatus
  iterations: IterationView[]
  finalCode: string
  error: string
  /** run_finished's error_kind ("" = the provider's, or unknown). */
  errorKind: string
  /** error's code and parameters (backend service.Code; "" for runs recorded before codes). */
  errorCode: string
  errorParams: Record<string, string>
  inputTokens: number
  outputTokens: number
  /** ISO time of run_started (or the stored start). */
  startedAt?: string
  finishedAt?: string
  durationMs?: number
  logs: LogLine[]
  lastSeq: number
  /** Set when the server refused the subscription (e.g. unknown run). */
  streamError?: ShownError
  /** true once Stop was pressed, until run_finished arrives. */
  cancelling: boolean
  cancelError?: ShownError
  /**
   * Class mode: the run waits for a sandbox behind this many executions
   * (the queued event); undefined once it has one.
   */
  queueAhead?: number
  /** The server's estimate of that wait, in ms (undefined: none yet). */
  queueWaitMs?: number
  /** Rebuilt from the history rather than streamed. */
  fromHistory: boolean
  /** From the history, rebuilt from its stored events (with everything a live run shows). */
  replayed?: boolean
}

/**
 * Whether each run status ends a run. Keyed by the union generated from
 * backend/event.RunStatus, so a status added in Go fails the type check
 * until it is sorted here.
 */
const ends: Record<RunStatus, boolean> = {
  [RunStatusRunning]: false,
  [RunStatusSuccess]: true,
  [RunStatusLimitReached]: true,
  [RunStatusError]: true,
  [RunStatusCancelled]: true,
  [RunStatusInterrupted]: true,
}

/** The statuses a run ends with. */
export const TERMINAL: ReadonlySet<string> = new Set(Object.entries(ends).filter(([, end]) => end).map(([status]) => status))

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
    mode: 'script',
    allowNetwork: false,
    stdin: '',
    workdir: '',
    validate: [],
    auditor: '',
    git: { uncommitted: false },
    status: 'starting',
    iterations: [],
    finalCode: '',
    error: '',
    errorKind: '',
    errorCode: '',
    errorParams: {},
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
  return {
    n,
    phase: 'generating',
    generation: '',
    reflection: '',
    reflecting: false,
    inputTokens: 0,
    outputTokens: 0,
    tools: [],
    validations: [],
    auditing: false,
  }
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
  if (m.type === 'error') {
    const p = m.payload
    return { ...run, streamError: { code: p?.code || undefined, params: p?.params, message: p?.message || 'the server refused to stream this run' } }
  }
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
        mode: p.mode === 'workspace' ? 'workspace' : 'script',
        allowNetwork: p.allow_network === true,
        stdin: p.stdin ?? '',
        workdir: p.workdir ?? '',
        validate: p.validate ?? [],
        auditor: p.auditor ?? '',
        status: isFinished(run) ? run.status : 'running',
        startedAt: e.ts,
      }
    }
    case 'iteration_started':
      return withIteration(run, e.payload.iteration, (it) => it)
    case 'token': {
      const p = e.payload
      return withIteration(run, p.iteration, (it) => {
        if (p.phase === 'reflect') return { ...it, reflecting: true, reflection: it.reflection + p.text }
        // The auditor answers in JSON: shown as "reviewing", then as its verdict.
        if (p.phase === 'audit') return it.auditing ? it : { ...it, auditing: true }
        return { ...it, generation: it.generation + p.text }
      })
    }
    case 'generated': {
      const p = e.payload
      run = { ...run, inputTokens: run.inputTokens + (p.input_tokens ?? 0), outputTokens: run.outputTokens + (p.output_tokens ?? 0) }
      // Workspace mode: the validation commands run next (unless the answer was unusable).
      const validating = run.mode === 'workspace' && !p.format_error && run.validate.length > 0
      return withIteration(run, p.iteration, (it) => ({
        ...it,
        phase: validating && it.phase === 'generating' ? 'validating' : it.phase,
        // The final answer wins over the streamed deltas (they may be coalesced).
        generation: p.content || it.generation,
        code: p.code,
        language: p.language,
        formatError: p.format_error || undefined,
        formatCode: p.format_code || undefined,
        formatParams: p.format_params,
        inputTokens: p.input_tokens ?? 0,
        outputTokens: p.output_tokens ?? 0,
        generationMs: p.duration_ms,
      }))
    }
    case 'exec_started':
      return withIteration({ ...run, queueAhead: undefined, queueWaitMs: undefined }, e.payload.iteration, (it) => ({ ...it, phase: 'executing' }))
    case 'exec_output': {
      const p = e.payload
      return withIteration(run, p.iteration, (it) => {
        const o = it.output ?? { stdout: '', stderr: '', stdoutCapped: false, stderrCapped: false }
        const output =
          p.stream === 'stderr'
            ? { ...o, stderr: o.stderr + p.text, stderrCapped: o.stderrCapped || p.capped === true }
            : { ...o, stdout: o.stdout + p.text, stdoutCapped: o.stdoutCapped || p.capped === true }
        return { ...it, output }
      })
    }
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
          outcome: p.outcome,
          description: p.description,
          protections: p.protections,
          notes: p.notes,
          warnings: p.warnings,
          images: p.images ?? [],
          imageNotes: p.image_notes,
          imagesSkipped: p.images_skipped ?? [],
        },
      }))
    }
    case 'tested':
      return withIteration(run, e.payload.iteration, (it) => ({ ...it, tests: e.payload }))
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
        status: p.status,
        finalCode: p.final_code ?? '',
        error: p.error ?? '',
        errorKind: p.error_kind ?? '',
        errorCode: p.error_code ?? '',
        errorParams: p.error_params ?? {},
        // The model that answered, when the provider fell back to another one.
        model: p.model || run.model,
        inputTokens: p.input_tokens || run.inputTokens,
        outputTokens: p.output_tokens || run.outputTokens,
        durationMs: p.duration_ms,
        finishedAt: e.ts,
        cancelling: false,
        queueAhead: undefined,
        queueWaitMs: undefined,
        iterations: run.iterations.map((it) => (it.reflecting || it.auditing ? { ...it, reflecting: false, auditing: false } : it)),
      }
    }
    case 'log':
      return { ...run, logs: [...run.logs, { level: e.payload.level, message: e.payload.message, code: e.payload.code || undefined, params: e.payload.params }] }
    case 'tool_called': {
      const p = e.payload
      const call: ToolCallView = { id: p.id || undefined, name: p.name, input: p.input ?? '', output: p.output ?? '', ok: p.ok, durationMs: p.duration_ms }
      return withIteration(run, p.iteration, (it) => ({ ...it, tools: [...it.tools, call] }))
    }
    case 'validated': {
      const p = e.payload
      const v: ValidationView = {
        command: p.command,
        exitCode: p.exit_code,
        passed: p.passed,
        timedOut: p.timed_out === true,
        stdout: p.stdout ?? '',
        stderr: p.stderr ?? '',
        truncated: p.truncated === true,
        durationMs: p.duration_ms,
      }
      return withIteration(run, p.iteration, (it) => ({
        ...it,
        phase: it.phase === 'generating' ? 'validating' : it.phase,
        validations: [...it.validations, v],
      }))
    }
    case 'audited': {
      const p = e.payload
      return withIteration(run, p.iteration, (it) => ({ ...it, auditing: false, audit: { approved: p.approved, reasons: p.reasons ?? [] } }))
    }
    case 'git':
      return { ...run, mode: 'workspace', git: applyGit(run.git, e.payload) }
    case 'queued':
      return {
        ...run,
        queueAhead: e.payload.ahead > 0 ? e.payload.ahead : undefined,
        queueWaitMs: e.payload.ahead > 0 && e.payload.wait_ms ? e.payload.wait_ms : undefined,
      }
    default:
      return run // an event kind this UI does not know yet
  }
}

function applyGit(g: GitView, p: Extract<RunEvent, { type: 'git' }>['payload']): GitView {
  const branch = p.branch || g.branch
  switch (p.action) {
    case 'branch':
      return { ...g, branch }
    case 'commit':
      return { ...g, branch, commit: p.commit, message: p.message, uncommitted: false }
    case 'uncommitted':
      return { ...g, branch, uncommitted: true }
    case 'metadata':
      return { ...g, metadata: p.path }
    case 'worktree':
      return { ...g, branch, worktree: p.path }
    default:
      return g
  }
}

/**
 * fromStored rebuilds a run from the history (GET /api/sessions/{id}). The
 * stored iterations hold no tool calls, validations or git events: a
 * workspace run is replayed from its stored events for those (runs store).
 */
export function fromStored(
  r: StoredRun,
  its: StoredIteration[] | null | undefined,
  prompt: string,
  mode: RunMode = 'script',
  images: StoredImage[] | null | undefined = [],
): RunState {
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
            images: (images ?? []).filter((im) => im.iteration === s.n).map(({ name, mime, size, width, height }) => ({ name, mime, size, width, height })),
            imagesSkipped: [],
          }
        : undefined,
      summary: s.summary || undefined,
      inputTokens: 0,
      outputTokens: 0,
      tools: [],
      validations: [],
      auditing: false,
    }))
  return newRun({
    runId: r.id,
    sessionId: r.session_id,
    provider: r.provider,
    model: r.model,
    prompt,
    stdin: r.stdin ?? '',
    maxIterations: r.max_iterations,
    reflect: r.reflect,
    language: r.language,
    mode,
    status: r.status as RunStatus,
    iterations,
    finalCode: r.final_code ?? '',
    error: r.error ?? '',
    errorCode: r.error_code ?? '',
    errorParams: r.error_params ?? {},
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    startedAt: r.started_at,
    finishedAt: r.finished_at ?? undefined,
    durationMs: r.duration_ms,
    fromHistory: true,
  })
}
