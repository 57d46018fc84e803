// Wire types shared by both faces. They mirror the JSON of loopforge serve
// (backend/server) and the generated Wails models (frontend/wailsjs/go/models.ts);
// plain interfaces, so the HTTP face needs no classes and tests can build
// them as object literals.

export interface ProviderStatus {
  name: string
  kind: string
  model: string
  base_url?: string
  api_key_env?: string
  version?: string
  default: boolean
  available: boolean
  /** Why the provider is not ready, e.g. "set OPENAI_API_KEY". */
  reason?: string
  /** Time limits of one call, in seconds (first byte and idle: HTTP kinds only). */
  first_byte_timeout_seconds?: number
  idle_timeout_seconds?: number
  timeout_seconds?: number
  /**
   * Its last call (in this loopforge process) was refused as unauthorised
   * with the profile as configured now; cleared when a later call succeeds.
   * The provider stays available: the user may retry.
   */
  key_rejected?: KeyRejection | null
}

/** When and why a provider's key was rejected (backend/service.KeyRejection). */
export interface KeyRejection {
  /** RFC 3339. */
  at: string
  /** What the provider said, e.g. "the API key was rejected (HTTP 401); check OPENAI_API_KEY". */
  message: string
}

export interface Preset {
  id: string
  title: string
  prompt: string
}

export interface RunRequest {
  session_id?: string
  prompt: string
  provider?: string
  model?: string
  base_url?: string
  max_iterations?: number
  reflect?: boolean
  timeout_seconds?: number
  language?: string
  /** With session_id: a new thread in that session (re-run one provider of a comparison). */
  fresh?: boolean
  /** Lets this run's code (and workspace commands) reach the network: a per-run opt-in, never a default. */
  allow_network?: boolean
  /** "script" (the default: one script run in the sandbox) or "workspace" (the model edits a git repository). */
  mode?: RunMode
  /** Workspace mode: the project folder ("" = the current workdir). */
  workdir?: string
  /** Workspace mode: shell commands run in the workdir after each attempt (e.g. "pytest -q"). */
  validate?: string[]
  /** Workspace mode: the provider profile that reviews a change that passed validation ("" = none). */
  auditor?: string
  /** Workspace mode: inputs and constraints (instructions default to the prompt). */
  task?: WorkspaceTask
}

export type RunMode = 'script' | 'workspace'

/** A workspace task (backend/loop.Task). */
export interface WorkspaceTask {
  /** "" = the prompt. */
  instructions: string
  /** Paths relative to the workdir: files are read into the prompt, folders shown as a tree. */
  inputs?: string[]
  constraints?: string[]
}

/** The configured run settings (loopforge.yml), the form's starting point. */
export interface Defaults {
  /** "" when none is configured or usable. */
  provider: string
  max_iterations: number
  reflect: boolean
  timeout_seconds: number
  language: string
  /**
   * What each execution of generated code (and each sandboxed workspace
   * command) gets: loopforge.yml `limits:` over the sandbox's defaults.
   * Absent from a server older than the limits line in the run form.
   */
  limits?: SandboxLimits
  /**
   * The sandbox level this machine gives, e.g. "namespace+cgroup",
   * "landlock", "basic"; "" when generated code cannot run at all.
   */
  isolation?: string
  /** Workspace mode: the time limit of one validation command (or run_command). */
  command_timeout_seconds?: number
  /** Workspace mode: false when loopforge.yml runs the commands unsandboxed, as the user (workspace: {sandbox: false}). */
  commands_sandboxed?: boolean
}

/** The effective sandbox limits of one execution (backend/service.LimitsInfo). */
export interface SandboxLimits {
  /** The whole run's memory (cgroup), else per process. */
  memory_bytes: number
  /** Processes plus threads. */
  processes: number
  /** Bytes of one output stream before the run is stopped. */
  output_bytes: number
  /** The largest file the code may write. */
  file_size_bytes: number
  open_files: number
  /** CPU bandwidth in cores (cgroup). */
  cpus: number
}

export interface CompareRequest extends RunRequest {
  providers: string[]
}

export interface CompareInfo {
  session_id: string
  runs: RunInfo[] | null
}

export interface ComparisonRow {
  run_id: string
  provider: string
  model: string
  status: RunStatus | string
  iterations: number
  iterations_to_success: number | null
  wall_ms: number
  first_token_ms: number | null
  input_tokens: number
  output_tokens: number
  /** 0 = unknown. */
  cost_usd: number
  lines_of_code: number
  final_exit_code: number | null
}

export type ExportFormat = 'py' | 'zip' | 'md' | 'html' | 'ipynb' | 'json'

export interface StatsGroup {
  provider?: string
  model?: string
  runs: number
  successes: number
  failures: number
  cancelled: number
  exec_timeouts: number
  success_rate: number
  avg_duration_ms: number
  median_duration_ms: number
  avg_iterations_to_success: number
  input_tokens: number
  output_tokens: number
  cost_usd: number
}

export interface Stats {
  total: StatsGroup
  groups: StatsGroup[] | null
}

export interface RunInfo {
  run_id: string
  session_id: string
  provider: string
  model: string
}

/** Run statuses as stored and as announced by run_finished. */
export type RunStatus = 'running' | 'success' | 'limit_reached' | 'error' | 'cancelled' | 'interrupted'

export interface RunBrief {
  id: string
  provider: string
  status: RunStatus | string
  iterations: number
}

export interface SessionSummary {
  id: string
  title: string
  prompt: string
  mode: string
  workdir: string
  created_at: string
  updated_at: string
  runs: RunBrief[] | null
}

export interface StoredRun {
  id: string
  session_id: string
  provider: string
  model: string
  /** The prompt this run answered (a follow-up's own prompt). */
  prompt?: string
  status: RunStatus | string
  max_iterations: number
  reflect: boolean
  language: string
  iterations: number
  final_code: string
  error: string
  input_tokens: number
  output_tokens: number
  cost_usd: number
  started_at: string
  finished_at?: string | null
  duration_ms: number
}

export interface StoredIteration {
  run_id?: string
  n: number
  code: string
  content: string
  exec_status: string
  exit_code: number
  stdout: string
  stderr: string
  truncated: boolean
  exec_ms: number
  isolation: string
  reflection: string
  status: string
  summary: string
}

export interface SessionDetail {
  id: string
  title: string
  prompt: string
  mode: string
  workdir: string
  created_at: string
  updated_at: string
  runs: StoredRun[] | null
  iterations: Record<string, StoredIteration[] | null> | null
}

// ---- events (backend/event/event.go) ----

export interface RunStartedPayload {
  session_id: string
  provider: string
  model?: string
  prompt: string
  max_iterations: number
  reflect: boolean
  language: string
  mode: RunMode | string
  /** The user let this run's code reach the network (omitted when not). */
  allow_network?: boolean
  /** Workspace mode: the project folder, the validation commands and the auditor profile. */
  workdir?: string
  validate?: string[] | null
  auditor?: string
}
export interface IterationPayload {
  iteration: number
}
export interface TokenPayload {
  iteration: number
  /** audit: the auditor reviewing a workspace change. */
  phase: 'generate' | 'reflect' | 'audit'
  text: string
}
export interface GeneratedPayload {
  iteration: number
  content: string
  code: string
  language: string
  format_error?: string
  input_tokens?: number
  output_tokens?: number
  duration_ms: number
}
/** Sandbox statuses: ok | error | timeout | output_limit | memory | killed. */
export interface ExecPayload {
  iteration: number
  status: string
  exit_code: number
  signal?: string
  stdout: string
  stderr: string
  truncated: boolean
  duration_ms: number
  isolation: string
  description: string
  /** Which protections applied (files, network, processes, memory, signals). */
  protections?: Record<string, boolean>
  /** Missing protections the user should know about. */
  warnings?: string[]
}
export interface ReflectionPayload {
  iteration: number
  text: string
}
export interface IterationDonePayload {
  iteration: number
  status: 'success' | 'error' | string
  summary: string
}
/**
 * Who a failed run's error comes from when it is not the provider:
 * workspace_guard = loopforge stopped to protect the repository (its git
 * control files changed, or HEAD left the run's branch).
 */
export type RunErrorKind = 'workspace_guard'

export interface RunFinishedPayload {
  status: RunStatus | string
  iterations: number
  final_code: string
  error?: string
  error_kind?: RunErrorKind | string
  input_tokens: number
  output_tokens: number
  duration_ms: number
}
export interface LogPayload {
  level: 'info' | 'warn' | string
  message: string
}

/** Workspace mode: a tool an API model called (read_file, write_file, …), with its result. */
export interface ToolCalledPayload {
  iteration: number
  id?: string
  name: string
  /** The JSON arguments as the model sent them. */
  input: string
  /** What went back to the model. */
  output: string
  ok: boolean
  duration_ms: number
}
/** Workspace mode: one validation command ran in the workdir. */
export interface ValidatedPayload {
  iteration: number
  command: string
  exit_code: number
  passed: boolean
  timed_out?: boolean
  stdout: string
  stderr: string
  truncated?: boolean
  duration_ms: number
}
/** Workspace mode: the auditor's verdict. */
export interface AuditedPayload {
  iteration: number
  approved: boolean
  reasons?: string[] | null
}
/**
 * Workspace mode, what happened in git: branch created or checked out,
 * commit made on success, changes left uncommitted on failure, run metadata
 * written (path relative to the workdir), or — in a comparison — the git
 * worktree (absolute path) this provider works in.
 */
export interface GitPayload {
  action: 'branch' | 'commit' | 'uncommitted' | 'metadata' | 'worktree' | string
  branch?: string
  commit?: string
  message?: string
  path?: string
}

interface Envelope<T extends string, P> {
  type: T
  run_id: string
  seq: number
  ts: string
  payload: P
}

export type RunEvent =
  | Envelope<'run_started', RunStartedPayload>
  | Envelope<'iteration_started', IterationPayload>
  | Envelope<'token', TokenPayload>
  | Envelope<'generated', GeneratedPayload>
  | Envelope<'exec_started', IterationPayload>
  | Envelope<'exec_finished', ExecPayload>
  | Envelope<'reflection', ReflectionPayload>
  | Envelope<'iteration_done', IterationDonePayload>
  | Envelope<'run_finished', RunFinishedPayload>
  | Envelope<'log', LogPayload>
  | Envelope<'tool_called', ToolCalledPayload>
  | Envelope<'validated', ValidatedPayload>
  | Envelope<'audited', AuditedPayload>
  | Envelope<'git', GitPayload>

/** The server's answer to a subscription it cannot serve (e.g. unknown run). */
export interface SubscriptionError {
  type: 'error'
  run_id: string
  payload: { message: string }
}

export type StreamMessage = RunEvent | SubscriptionError

/** One subfolder in a FolderListing. */
export interface Folder {
  name: string
  path: string
}

/** What the web folder picker shows: a folder, its parent and its subfolders (hidden ones left out). */
export interface FolderListing {
  /** The absolute path listed. */
  path: string
  /** "" at the root. */
  parent: string
  folders: Folder[]
}
