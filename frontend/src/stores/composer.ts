// Composer store: what the Run panel is about to start — the prompt, the
// providers and the loop settings. The prompt and the provider choice are
// kept across reloads (a prepared lesson survives a refresh); the loop
// settings start from the configured defaults (loopforge.yml, GET
// /api/defaults) every time, so the form never overrides the user's config.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { CompareRequest, Defaults, RunRequest } from '../api'
import { defaultStorage, readJSON, writeJSON, type KV } from './persist'

export interface ComposerFields {
  prompt: string
  presetId: string
  /** Chosen profile names: one → a run, several → a comparison; [] = the default ready one. */
  providers: string[]
  maxIterations: number
  reflect: boolean
  timeoutSeconds: number
  language: 'python' | 'sh'
}

export interface ComposerState extends ComposerFields {
  /** True once the configured defaults arrived (or failed to). */
  defaultsLoaded: boolean
  set(patch: Partial<ComposerFields>): void
  /** Ticks or unticks one provider. */
  toggleProvider(name: string, on: boolean): void
  /** Puts the configured settings in the form. */
  applyDefaults(d: Defaults | null): void
  /** The request for POST /api/runs (sessionId continues a session). */
  request(provider: string | null, sessionId?: string, prompt?: string): RunRequest
  /** The request for POST /api/compare. */
  compareRequest(providers: string[]): CompareRequest
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
}

const KEY = 'loopforge.composer'

export const limits = {
  maxIterations: { min: 1, max: 20 },
  timeoutSeconds: { min: 1, max: 600 },
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
  }
  const store = createStore<ComposerState>()((set, get) => ({
    ...init,
    defaultsLoaded: false,
    set(patch) {
      set(patch)
    },
    toggleProvider(name, on) {
      const cur = get().providers.filter((x) => x !== name)
      set({ providers: on ? [...cur, name] : cur })
    },
    applyDefaults(d) {
      if (!d) return set({ defaultsLoaded: true })
      set({
        defaultsLoaded: true,
        maxIterations: clamp(d.max_iterations, limits.maxIterations.min, limits.maxIterations.max, composerDefaults.maxIterations),
        reflect: typeof d.reflect === 'boolean' ? d.reflect : composerDefaults.reflect,
        timeoutSeconds: clamp(d.timeout_seconds, limits.timeoutSeconds.min, limits.timeoutSeconds.max, composerDefaults.timeoutSeconds),
        language: d.language === 'sh' ? 'sh' : 'python',
      })
    },
    request(provider, sessionId, prompt) {
      const s = get()
      const req: RunRequest = {
        prompt: (prompt ?? s.prompt).trim(),
        max_iterations: clamp(s.maxIterations, limits.maxIterations.min, limits.maxIterations.max, composerDefaults.maxIterations),
        reflect: s.reflect,
        timeout_seconds: clamp(s.timeoutSeconds, limits.timeoutSeconds.min, limits.timeoutSeconds.max, composerDefaults.timeoutSeconds),
        language: s.language,
      }
      if (provider) req.provider = provider
      if (sessionId) req.session_id = sessionId
      return req
    },
    compareRequest(providers) {
      return { ...get().request(null), providers }
    },
  }))
  store.subscribe((s) => {
    const { prompt, presetId, providers } = s
    writeJSON(kv, KEY, { prompt, presetId, providers })
  })
  return store
}
