// Providers store: the configured provider profiles (ready or not, and why)
// the built-in prompt presets and the configured run settings, loaded
// together when the app starts.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, Defaults, Preset, ProviderStatus } from '../api'
import { shownError, type ShownError } from '../api'

export interface ProvidersState {
  providers: ProviderStatus[]
  presets: Preset[]
  /** The configured run settings; null until loaded (or when the server cannot say). */
  defaults: Defaults | null
  loading: boolean
  loaded: boolean
  error: ShownError | null
  load(): Promise<void>
  /** Lists the providers again, quietly (a failure keeps the last list). */
  refresh(): Promise<void>
}

export type ProvidersStore = StoreApi<ProvidersState>

export function createProvidersStore(api: Api): ProvidersStore {
  return createStore<ProvidersState>()((set) => ({
    providers: [],
    presets: [],
    defaults: null,
    loading: false,
    loaded: false,
    error: null,
    async load() {
      set({ loading: true, error: null })
      try {
        // An older server without /api/defaults still gets a usable form.
        const [providers, presets, defaults] = await Promise.all([api.providers(), api.presets(), api.defaults().catch(() => null)])
        set({ providers, presets, defaults, loading: false, loaded: true })
      } catch (err) {
        set({ loading: false, error: shownError(err) })
      }
    },
    async refresh() {
      try {
        set({ providers: await api.providers() })
      } catch {
        // The list shown is still the best known; load() reports errors.
      }
    },
  }))
}

/** defaultProvider picks the configured default when it is ready, else the first ready one. */
export function defaultProvider(list: ProviderStatus[], configured?: string | null): string | null {
  const d = list.find((p) => p.available && (configured ? p.name === configured : p.default)) ?? list.find((p) => p.default && p.available)
  return (d ?? list.find((p) => p.available))?.name ?? null
}
