// Composer store: what the Run panel is about to start — the prompt, the
// provider and the loop settings. Kept across reloads so a prepared lesson
// survives a refresh of the page.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { RunRequest } from '../api'
import { defaultStorage, readJSON, writeJSON, type KV } from './persist'

export interface ComposerFields {
  prompt: string
  presetId: string
  /** Profile name; null = not chosen yet (the default ready one is used). */
  provider: string | null
  maxIterations: number
  reflect: boolean
  timeoutSeconds: number
  language: 'python' | 'sh'
}

export interface ComposerState extends ComposerFields {
  set(patch: Partial<ComposerFields>): void
  /** The request for POST /api/runs (sessionId continues a session). */
  request(provider: string | null, sessionId?: string, prompt?: string): RunRequest
}

export type ComposerStore = StoreApi<ComposerState>

export const composerDefaults: ComposerFields = {
  prompt: '',
  presetId: '',
  provider: null,
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

export function createComposerStore(kv: KV | null = defaultStorage()): ComposerStore {
  const saved = readJSON<ComposerFields>(kv, KEY)
  const init: ComposerFields = {
    ...composerDefaults,
    prompt: typeof saved.prompt === 'string' ? saved.prompt : '',
    presetId: typeof saved.presetId === 'string' ? saved.presetId : '',
    provider: typeof saved.provider === 'string' ? saved.provider : null,
    maxIterations: clamp(saved.maxIterations, limits.maxIterations.min, limits.maxIterations.max, composerDefaults.maxIterations),
    reflect: typeof saved.reflect === 'boolean' ? saved.reflect : true,
    timeoutSeconds: clamp(saved.timeoutSeconds, limits.timeoutSeconds.min, limits.timeoutSeconds.max, composerDefaults.timeoutSeconds),
    language: saved.language === 'sh' ? 'sh' : 'python',
  }
  const store = createStore<ComposerState>()((set, get) => ({
    ...init,
    set(patch) {
      set(patch)
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
  }))
  store.subscribe((s) => {
    const { prompt, presetId, provider, maxIterations, reflect, timeoutSeconds, language } = s
    writeJSON(kv, KEY, { prompt, presetId, provider, maxIterations, reflect, timeoutSeconds, language })
  })
  return store
}
