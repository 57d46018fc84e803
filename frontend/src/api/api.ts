// The one seam between the UI and the Go backend. Both faces implement it:
// the desktop window through the generated Wails bindings (wails.ts) and the
// browser through loopforge serve's JSON API (http.ts). Live events come from
// the same websocket in both faces (events.ts). Components receive an Api
// (through the stores) and never touch window.go, fetch or WebSocket directly.

import { errorText } from '../strings'
import type { OpIn, OpName, OpOut } from './gen/ops'
import type { ErrorBody } from './gen/wire'
import type {
  CompareInfo,
  CompareRequest,
  ComparisonRow,
  Defaults,
  ExportFormat,
  FolderListing,
  Preset,
  ProviderStatus,
  RunInfo,
  RunRequest,
  SessionDetail,
  SessionSummary,
  Stats,
  StreamMessage,
} from './types'
import type { ClassExportFormat, ClassMessage } from './class'
import type { JoinRequest, Me } from './gen/wire'

/**
 * Call sends one operation of backend/api/ops.go by name with its wire
 * input; each face has one (HTTP route or Wails binding, both generated
 * from that table in gen/ops.ts).
 */
export type Call = <K extends OpName>(name: K, input: OpIn<K>) => Promise<OpOut<K>>

/** One downloaded export: the server's file name and the content. */
export interface ExportFile {
  name: string
  data: Blob
}

export type Face = 'web' | 'desktop'

export interface Api {
  readonly face: Face
  /**
   * Any operation of backend/api/ops.go. The named methods below are the
   * same calls in the words of the UI; a new operation needs no new method.
   */
  call: Call
  /** The application version, e.g. "0.1.0". */
  version(): Promise<string>
  /** Every configured provider profile, ready or not (reason says why not). */
  providers(): Promise<ProviderStatus[]>
  /** Built-in prompts. */
  presets(): Promise<Preset[]>
  /** The configured run settings (loopforge.yml). */
  defaults(): Promise<Defaults>
  /** Starts a loop; its events arrive through events.subscribe. */
  startRun(req: RunRequest): Promise<RunInfo>
  /** Starts one loop per provider in a new comparison session (all validated first). */
  startCompare(req: CompareRequest): Promise<CompareInfo>
  /** One row per run of a comparison session, in start order. */
  comparison(sessionId: string): Promise<ComparisonRow[]>
  /** The history summarised, in total and per provider+model. */
  stats(): Promise<Stats>
  /**
   * Web only (null on the desktop): the download address of an export
   * (an attachment; runId picks one run, "" = the whole session), its own
   * words in lang and its dates in the IANA time zone tz ("" = the server's).
   */
  readonly exportURL: ((sessionId: string, format: ExportFormat, runId?: string, lang?: string, tz?: string) => string) | null
  /**
   * Web only (null on the desktop): fetches the export at exportURL, so a
   * refusal (e.g. 409: the run produced no code) reaches the user as an
   * ApiError instead of a silently cancelled download.
   */
  readonly fetchExport: ((sessionId: string, format: ExportFormat, runId?: string, lang?: string, tz?: string) => Promise<ExportFile>) | null
  /**
   * Desktop only (null on the web): the native save dialog; resolves to the
   * saved path, "" when the user cancelled.
   */
  readonly saveExport: ((sessionId: string, format: ExportFormat, runId?: string, lang?: string, tz?: string) => Promise<string>) | null
  /** Stops a run; its run_finished event (status cancelled) follows. */
  cancelRun(runId: string): Promise<void>
  sessions(query: string, limit: number): Promise<SessionSummary[]>
  session(id: string): Promise<SessionDetail>
  deleteSession(id: string): Promise<void>
  /** The working directory ("" = none chosen). */
  workdir(): Promise<string>
  /** Validates and sets the working directory; rejects with the server's reason. */
  setWorkdir(path: string): Promise<string>
  /**
   * Desktop only (null on the web): the native folder dialog. Resolves to the
   * working directory afterwards (unchanged when the user cancelled).
   */
  readonly chooseWorkdir: (() => Promise<string>) | null
  /**
   * Web only (null on the desktop, which has chooseWorkdir): lists the
   * subfolders of path on the machine running loopforge, for the folder
   * picker; "" starts at the working directory, else the home directory.
   * Rejects with the server's reason when path cannot be listed.
   */
  readonly folders: ((path: string) => Promise<FolderListing>) | null
  /**
   * Desktop: a folder dropped on the window is set natively and reported here.
   * The web face never calls the handlers. Returns an unsubscribe function.
   */
  onWorkdirDropped(onChanged: (path: string) => void, onError: (message: string) => void): () => void
  /**
   * Web only (null on the desktop): joins a class with its code and a
   * display name (POST /api/class/join); the server sets the student's
   * cookie and answers who the caller now is.
   */
  readonly joinClass: ((req: JoinRequest) => Promise<Me>) | null
  /** Web only (null on the desktop): downloads the class export (zip, or the summary table as csv / md). */
  readonly fetchClassExport: ((format: ClassExportFormat, lang?: string, tz?: string) => Promise<ExportFile>) | null
  /** The live event stream. */
  readonly events: EventStream
}

export type ConnectionState =
  | { status: 'idle' }
  | { status: 'connecting' }
  | { status: 'open' }
  /** Lost (or never reached): retrying in retryInMs; attempt counts from 1. */
  | { status: 'reconnecting'; attempt: number; retryInMs: number; reason: string }
  /**
   * The server closed the stream for good (close 1008: this client may no
   * longer listen, e.g. a student removed from the class). No retry: the next
   * subscribe, made once the client may listen again, connects anew.
   */
  | { status: 'refused'; reason: string }

export interface EventStream {
  /**
   * Delivers every event of runId with seq > after, exactly once and in order,
   * across reconnects; a subscription error arrives as {type:"error"}. One
   * subscription per run: a second call for the same run shares the first's
   * position. Returns an unsubscribe function.
   */
  subscribe(runId: string, after: number, onMessage: (m: StreamMessage) => void): () => void
  /**
   * The class stream (class mode): the class's state now and on every
   * change, and for the instructor one wall line per student now and on
   * every change of it; sent again after a reconnect. Returns an
   * unsubscribe function.
   */
  subscribeClass(onMessage: (m: ClassMessage) => void): () => void
  connection(): ConnectionState
  onConnection(listener: (s: ConnectionState) => void): () => void
}

/** operations builds the named methods of Api that are plain operations, once for both faces. */
export function operations(call: Call) {
  return {
    call,
    providers: () => call('Providers', {}),
    presets: () => call('Presets', {}),
    defaults: () => call('Defaults', {}),
    startRun: (req: RunRequest) => call('StartRun', req),
    startCompare: (req: CompareRequest) => call('StartCompare', req),
    comparison: (sessionId: string) => call('Comparison', { id: sessionId }),
    stats: () => call('Stats', {}),
    cancelRun: async (runId: string) => {
      await call('CancelRun', { id: runId })
    },
    sessions: (query: string, limit: number) => call('Sessions', { q: query, limit }),
    session: (id: string) => call('Session', { id }),
    deleteSession: async (id: string) => {
      await call('DeleteSession', { id })
    },
    workdir: async () => (await call('Workdir', {})).path,
    setWorkdir: async (path: string) => (await call('SetWorkdir', { path })).path,
  } satisfies Partial<Api>
}

/**
 * ApiError carries the backend's one-line English message, the stable code
 * and parameters the UI words it by (wire.ErrorBody), and, on the web, the
 * HTTP status (and the Retry-After of a refusal that says when to try again).
 */
export class ApiError extends Error {
  readonly status?: number
  readonly code?: string
  readonly params: Record<string, string>
  readonly retryAfterSeconds?: number
  constructor(message: string, status?: number, code?: string, params?: Record<string, string>, retryAfterSeconds?: number) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = code || undefined
    this.params = params ?? {}
    if (retryAfterSeconds != null) this.retryAfterSeconds = retryAfterSeconds
  }
}

/** isErrorBody: a failure as the backend sends it ({error, code, params}). */
export function isErrorBody(x: unknown): x is ErrorBody {
  return typeof x === 'object' && x !== null && typeof (x as ErrorBody).error === 'string'
}

/** toApiError turns anything thrown (Wails rejects with the error body, or a string) into an ApiError. */
export function toApiError(err: unknown, status?: number, retryAfterSeconds?: number): ApiError {
  if (err instanceof ApiError) return err
  if (isErrorBody(err)) return new ApiError(err.error, status, err.code, err.params ?? {}, retryAfterSeconds)
  return new ApiError(rawMessage(err), status, undefined, undefined, retryAfterSeconds)
}

function rawMessage(err: unknown): string {
  if (err instanceof Error) return err.message
  if (typeof err === 'string') return err
  try {
    return JSON.stringify(err)
  } catch {
    return String(err)
  }
}

/**
 * ShownError is a failure as the UI keeps it: the backend's code and
 * parameters and its English text (the words for a code the UI does not
 * know, or for anything else thrown). It is worded only when shown
 * (errorWords), so an error already on screen follows a switch of language.
 */
export interface ShownError {
  code?: string
  params?: Record<string, string>
  message: string
}

/** shownError keeps anything thrown as a ShownError. */
export function shownError(err: unknown): ShownError {
  const e = err instanceof ApiError || isErrorBody(err) ? toApiError(err) : null
  if (e) return e.code ? { code: e.code, params: e.params, message: e.message } : { message: e.message }
  return { message: rawMessage(err) }
}

/** errorWords is what the user reads for a kept error, in the language in use now. */
export function errorWords(e: ShownError | null | undefined): string {
  return e ? errorText(e.code, e.params, e.message) : ''
}

/**
 * errorMessage is what the user reads for anything thrown: an error from the
 * backend in the UI's language (by its code), else its text. A store keeps
 * shownError(err) instead, and words it when it is shown.
 */
export function errorMessage(err: unknown): string {
  return errorWords(shownError(err))
}
