// Composer store: what the Run panel is about to start — the prompt, the
// providers, the loop settings and the mode. The prompt, the provider choice
// and the workspace fields are kept across reloads (a prepared lesson
// survives a refresh), and so is the program's input; the loop settings start from the configured defaults
// (loopforge.yml, GET /api/defaults) every time, so the form never overrides
// the user's config. The network opt-in is never kept: it is ticked for one
// run and cleared once that run starts (startedRun).

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { CompareRequest, Defaults, RunMode, RunRequest } from '../api'
import { defaultStorage, readJSON, writeJSON, type KV } from './persist'

export interface ComposerFields {
  prompt: string
  presetId: string
  /** Chosen profile names: one → a run, several → a comparison; [] = the default ready one. */
  providers: string[]
  maxIterations: number
  reflect: boolean
  timeoutSeconds: number
  language: Language
  /** script: one script run in the sandbox; workspace: the model edits the workdir (a git repository). */
  mode: RunMode
  /** Workspace: validation commands, one per line. */
  validate: string
  /** Workspace: the auditor's profile name ("" = none). */
  auditor: string
  /** Workspace: input paths relative to the workdir, one per line. */
  inputs: string
  /** Workspace: constraints, one per line. */
  constraints: string
  /** This run's code may reach the network. Never saved; cleared when a run starts. */
  allowNetwork: boolean
  /** Script mode: the text given to the program's standard input (what input() reads); "" = none. */
  stdin: string
  /**
   * Models picked from a provider's models list, by profile name: a run of
   * that provider alone asks for it instead of the profile's model. Kept
   * across reloads; a comparison uses each profile's own model.
   */
  models: Record<string, string>
  /** Script mode: the tests that judge each program, as YAML (backend/judge); "" = none. */
  tests: string
}

export interface ComposerState extends ComposerFields {
  /** True once the configured defaults arrived (or failed to). */
  defaultsLoaded: boolean
  /**
   * The largest iteration limit the server accepts (GET /api/defaults'
   * max_iterations_limit: for a student, the class's cap). The form's cap
   * is the server's, not a number of its own; until the defaults arrive it
   * is the form's default.
   */
  iterationCap: number
  set(patch: Partial<ComposerFields>): void
  /** Ticks or unticks one provider. */
  toggleProvider(name: string, on: boolean): void
  /** Picks a model for one provider's runs; null goes back to the profile's. */
  pickModel(provider: string, model: string | null): void
  /** Puts the configured settings in the form. */
  applyDefaults(d: Defaults | null): void
  /**
   * A student: the class's limits changed. Unticks the providers (and the
   * auditor, the preset) the class no longer offers, and takes the class's
   * iteration cap, lowering the limit to it when it is above.
   */
  classLimits(offered: { providers: string[]; presets: string[]; iterationCap?: number }): void
  /**
   * The request for POST /api/runs. sessionId continues a session: such a
   * follow-up never carries the network opt-in, which belongs to the run
   * started from the form. mode overrides the form's (a follow-up keeps its
   * session's mode).
   */
  request(provider: string | null, sessionId?: string, prompt?: string, mode?: RunMode): RunRequest
  /** The request for POST /api/compare. */
  compareRequest(providers: string[]): CompareRequest
  /** A run started from the form: the one-run network opt-in is used up. */
  startedRun(): void
}

export type ComposerStore = StoreApi<ComposerState>

/** Used only until (or if) the configured defaults cannot be read. */
export const composerDefaults: ComposerFields = {
  prompt: '',
  presetId: '',
  providers: [],
  maxIterations: 5,
  reflect: true,
  timeoutSeconds: 30,
  language: 'python',
  mode: 'script',
  validate: '',
  auditor: '',
  inputs: '',
  constraints: '',
  allowNetwork: false,
  stdin: '',
  models: {},
  tests: '',
}

const KEY = 'loopforge.composer'

export const limits = {
  /** The least iteration limit; the most is the server's (ComposerState.iterationCap). */
  minIterations: 1,
  timeoutSeconds: { min: 1, max: 600 },
}

/** clampIterations keeps an iteration limit within 1..cap (a bad value is the form's default). */
export function clampIterations(n: unknown, cap: number): number {
  return clamp(n, limits.minIterations, cap, Math.min(cap, composerDefaults.maxIterations))
}

function clamp(n: unknown, lo: number, hi: number, dflt: number): number {
  const x = typeof n === 'number' && Number.isFinite(n) ? Math.round(n) : dflt
  return Math.min(hi, Math.max(lo, x))
}

interface Saved {
  prompt: string
  presetId: string
  providers: string[]
  /** Before comparisons: one provider. */
  provider: string
  mode: string
  validate: string
  auditor: string
  inputs: string
  constraints: string
  stdin: string
  models: Record<string, string>
  tests: string
}

/** lines splits a textarea into its trimmed, non-empty lines. */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '')

/** stringMap keeps the string entries of a saved object (anything else: none). */
function stringMap(v: unknown): Record<string, string> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {}
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''))
}

export function createComposerStore(kv: KV | null = defaultStorage()): ComposerStore {
  const saved = readJSON<Saved>(kv, KEY)
  const providers = Array.isArray(saved.providers)
    ? saved.providers.filter((x): x is string => typeof x === 'string')
    : typeof saved.provider === 'string'
      ? [saved.provider]
      : []
  const init: ComposerFields = {
    ...composerDefaults,
    prompt: typeof saved.prompt === 'string' ? saved.prompt : '',
    presetId: typeof saved.presetId === 'string' ? saved.presetId : '',
    providers,
    mode: saved.mode === 'workspace' ? 'workspace' : 'script',
    validate: text(saved.validate),
    auditor: text(saved.auditor),
    inputs: text(saved.inputs),
    constraints: text(saved.constraints),
    stdin: text(saved.stdin),
    models: stringMap(saved.models),
    tests: text(saved.tests),
  }
  const store = createStore<ComposerState>()((set, get) => ({
    ...init,
    defaultsLoaded: false,
    iterationCap: composerDefaults.maxIterations,
    set(patch) {
      set(patch)
    },
    toggleProvider(name, on) {
      const cur = get().providers.filter((x) => x !== name)
      set({ providers: on ? [...cur, name] : cur })
    },
    pickModel(provider, model) {
      const { [provider]: _, ...rest } = get().models
      set({ models: model ? { ...rest, [provider]: model } : rest })
    },
    applyDefaults(d) {
      if (!d) return set({ defaultsLoaded: true })
      const cap = typeof d.max_iterations_limit === 'number' && d.max_iterations_limit >= limits.minIterations ? Math.floor(d.max_iterations_limit) : get().iterationCap
      set({
        defaultsLoaded: true,
        iterationCap: cap,
        maxIterations: clampIterations(d.max_iterations, cap),
        reflect: typeof d.reflect === 'boolean' ? d.reflect : composerDefaults.reflect,
        timeoutSeconds: clamp(d.timeout_seconds, limits.timeoutSeconds.min, limits.timeoutSeconds.max, composerDefaults.timeoutSeconds),
        language: toLanguage(d.language),
      })
    },
    classLimits({ providers: offered, presets, iterationCap }) {
      const s = get()
      const patch: Partial<ComposerState> = {}
      if (offered.length) {
        const kept = s.providers.filter((p) => offered.includes(p))
        if (kept.length !== s.providers.length) patch.providers = kept
        if (s.auditor.trim() && !offered.includes(s.auditor.trim())) patch.auditor = ''
      }
      if (presets.length && s.presetId && !presets.includes(s.presetId)) patch.presetId = ''
      if (typeof iterationCap === 'number' && iterationCap >= limits.minIterations) {
        const cap = Math.floor(iterationCap)
        patch.iterationCap = cap
        if (s.maxIterations > cap) patch.maxIterations = cap
      }
      set(patch)
    },
    request(provider, sessionId, prompt, mode) {
      const s = { ...get(), mode: mode ?? get().mode }
      const req: RunRequest = {
        prompt: (prompt ?? s.prompt).trim(),
        max_iterations: clampIterations(s.maxIterations, s.iterationCap),
        timeout_seconds: clamp(s.timeoutSeconds, limits.timeoutSeconds.min, limits.timeoutSeconds.max, composerDefaults.timeoutSeconds),
      }
      if (s.mode === 'workspace') {
        // The language and reflection do not apply: the model edits files and
        // the validation log goes back to it instead.
        req.mode = 'workspace'
        const validate = lines(s.validate)
        if (validate.length) req.validate = validate
        if (s.auditor.trim()) req.auditor = s.auditor.trim()
        const inputs = lines(s.inputs)
        const constraints = lines(s.constraints)
        if (inputs.length || constraints.length) {
          req.task = { instructions: '' }
          if (inputs.length) req.task.inputs = inputs
          if (constraints.length) req.task.constraints = constraints
        }
      } else {
        req.reflect = s.reflect
        req.language = s.language
        if (s.stdin) req.stdin = s.stdin
        if (s.tests.trim()) req.tests = s.tests
      }
      if (s.allowNetwork && !sessionId) req.allow_network = true
      if (provider) req.provider = provider
      if (provider && s.models[provider]) req.model = s.models[provider]
      if (sessionId) req.session_id = sessionId
      return req
    },
    compareRequest(providers) {
      // request(null) names no provider, hence no picked model: each
      // column runs its profile's own.
      return { ...get().request(null), providers }
    },
    startedRun() {
      if (get().allowNetwork) set({ allowNetwork: false })
    },
  }))
  store.subscribe((s) => {
    const { prompt, presetId, providers, mode, validate, auditor, inputs, constraints, stdin, models, tests } = s
    writeJSON(kv, KEY, { prompt, presetId, providers, mode, validate, auditor, inputs, constraints, stdin, models, tests })
  })
  return store
}

/** Languages the loop can generate (the backend's loop.Languages). */
export type Language = 'python' | 'sh' | 'node'

/** toLanguage maps a configured name or alias to one the form offers. */
export function toLanguage(name: string | undefined): Language {
  switch ((name ?? '').trim().toLowerCase()) {
    case 'sh':
    case 'bash':
    case 'shell':
    case 'zsh':
      return 'sh'
    case 'node':
    case 'nodejs':
    case 'javascript':
    case 'js':
      return 'node'
    default:
      return 'python'
  }
}
