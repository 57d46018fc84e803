// The wire types of both faces are generated from Go by `go generate` (never
// edit gen/ by hand; a Go test fails when it is stale): gen/wire.ts from
// backend/wire, the inputs and outputs of every operation in
// backend/api/ops.go, and gen/event.ts from backend/event, the event
// envelope and its payloads. This file re-exports them under the names the
// UI uses and adds what Go cannot say: literal unions of known values and
// the envelopes as a union discriminated by type.

import type * as ev from './gen/event'
import type { StreamErrorPayload } from './gen/wire'

export type {
  CompareInfo,
  CompareRequest,
  ComparisonRow,
  Defaults,
  Folder,
  FolderListing,
  KeyRejection,
  Preset,
  ProviderStatus,
  RepeatGroup,
  RepeatRequest,
  RepeatStatus,
  RunBrief,
  RunInfo,
  RunMode,
  RunRequest,
  SandboxLimits,
  SessionDetail,
  SessionSummary,
  StoredImage,
  Stats,
  StatsGroup,
  StoredIteration,
  StoredRun,
  StreamRequest,
  WorkspaceTask,
} from './gen/wire'

export type {
  ExecNote,
  ExecOutputPayload,
  ExecPayload,
  GeneratedPayload,
  GitPayload,
  ImageRef,
  IterationDonePayload,
  IterationPayload,
  LogPayload,
  ReflectionPayload,
  RunFinishedPayload,
  RunStartedPayload,
  TokenPayload,
} from './gen/event'

/** Workspace mode: a tool an API model called (read_file, write_file, …), with its result. */
export type ToolCalledPayload = ev.ToolCallPayload
/** Workspace mode: one validation command ran in the workdir. */
export type ValidatedPayload = ev.ValidatePayload
/** Workspace mode: the auditor's verdict. */
export type AuditedPayload = ev.AuditPayload

export type ExportFormat = 'py' | 'zip' | 'md' | 'html' | 'ipynb' | 'json'

/**
 * Run statuses as stored and as announced by run_finished (backend/event
 * RunStatus; gen/wire says string because the Wails bindings return one).
 */
export type RunStatus = ev.RunStatus

/** How a session was started: script, workspace or compare (backend/event SessionMode). */
export type SessionMode = ev.SessionMode

/** An iteration's status: running, success or error (backend/event IterationStatus). */
export type IterationStatus = ev.IterationStatus

/**
 * Who a failed run's error comes from when it is not the provider:
 * workspace_guard = loopforge stopped to protect the repository (its git
 * control files changed, or HEAD left the run's branch).
 */
export type RunErrorKind = typeof ev.ErrorWorkspaceGuard

/** An event envelope (backend/event.Event) whose payload type follows from its type. */
interface Envelope<T extends string, P> extends Omit<ev.Event, 'type' | 'payload'> {
  type: T
  payload: P
}

export type RunEvent =
  | Envelope<'run_started', ev.RunStartedPayload>
  | Envelope<'iteration_started', ev.IterationPayload>
  | Envelope<'token', ev.TokenPayload>
  | Envelope<'generated', ev.GeneratedPayload>
  | Envelope<'exec_started', ev.IterationPayload>
  | Envelope<'exec_output', ev.ExecOutputPayload>
  | Envelope<'exec_finished', ev.ExecPayload>
  | Envelope<'reflection', ev.ReflectionPayload>
  | Envelope<'iteration_done', ev.IterationDonePayload>
  | Envelope<'run_finished', ev.RunFinishedPayload>
  | Envelope<'log', ev.LogPayload>
  | Envelope<'tool_called', ToolCalledPayload>
  | Envelope<'validated', ValidatedPayload>
  | Envelope<'audited', AuditedPayload>
  | Envelope<'git', ev.GitPayload>
  /** Class mode: the iteration's execution waits for a sandbox (ahead ≥ 1), or got one (0). */
  | Envelope<'queued', ev.QueuedPayload>
  /** The run's tests judged the iteration's program (a student's copy has no evidence of hidden tests). */
  | Envelope<'tested', ev.TestsPayload>

/** The server's answer to a subscription it cannot serve (e.g. unknown run). */
export interface SubscriptionError {
  type: 'error'
  run_id: string
  payload: StreamErrorPayload
}

export type StreamMessage = RunEvent | SubscriptionError
