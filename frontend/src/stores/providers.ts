// Providers store: the configured provider profiles (ready or not, and why)
// and the built-in prompt presets, loaded together when the app starts.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, Preset, ProviderStatus } from '../api'
import { errorMessage } from '../api'

export interface ProvidersState {
  providers: ProviderStatus[]
  presets: Preset[]
  loading: boolean
  loaded: boolean
  error: string | null
  load(): Promise<void>
}

export type ProvidersStore = StoreApi<ProvidersState>

export function createProvidersStore(api: Api): ProvidersStore {
  return createStore<ProvidersState>()((set) => ({
    providers: [],
    presets: [],
    loading: false,
    loaded: false,
    error: null,
    async load() {
      set({ loading: true, error: null })
      try {
        const [providers, presets] = await Promise.all([api.providers(), api.presets()])
        set({ providers, presets, loading: false, loaded: true })
      } catch (err) {
        set({ loading: false, error: errorMessage(err) })
      }
    },
  }))
}

/** defaultProvider picks the configured default when it is ready, else the first ready one. */
export function defaultProvider(list: ProviderStatus[]): string | null {
  const d = list.find((p) => p.default && p.available)
  return (d ?? list.find((p) => p.available))?.name ?? null
}
