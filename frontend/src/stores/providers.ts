// Providers store: the configured provider profiles (ready or not, and why)
// the built-in prompt presets and the configured run settings, loaded
// together when the app starts.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, Defaults, Preset, ProviderStatus } from '../api'
import { shownError, type ShownError } from '../api'
import type { ClassLimits } from '../api/gen/wire'

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
  /**
   * A student: the class's limits changed. The lists lose at once what the
   * class no longer offers, then are read again (quietly), so what it
   * offers anew appears too.
   */
  classLimits(l: ClassLimits): void
}

export type ProvidersStore = StoreApi<ProvidersState>

export function createProvidersStore(api: Api): ProvidersStore {
  // Each reading is numbered: an answer older than the last one asked for
  // (two limit changes in a row, a refresh after a run) is dropped. The
  // providers are read by refresh too, the presets and defaults only here.
  let askedProviders = 0
  let askedLists = 0
  return createStore<ProvidersState>()((set, get) => ({
    providers: [],
    presets: [],
    defaults: null,
    loading: false,
    loaded: false,
    error: null,
    async load() {
      set({ loading: true, error: null })
      const np = ++askedProviders
      const nl = ++askedLists
      try {
        // An older server without /api/defaults still gets a usable form.
        const [providers, presets, defaults] = await Promise.all([api.providers(), api.presets(), api.defaults().catch(() => null)])
        // A reading asked for since (the class's limits changed meanwhile)
        // is newer than this one; until it answers, these defaults are the
        // only ones (the form needs them now, and the class view caps them).
        const newer = nl !== askedLists
        set({
          ...(np === askedProviders ? { providers } : {}),
          ...(newer ? {} : { presets }),
          ...(newer && get().defaults ? {} : { defaults }),
          loading: false,
          loaded: true,
        })
      } catch (err) {
        set({ loading: false, error: shownError(err) })
      }
    },
    async refresh() {
      const n = ++askedProviders
      try {
        const providers = await api.providers()
        if (n === askedProviders) set({ providers })
      } catch {
        // The list shown is still the best known; load() reports errors.
      }
    },
    classLimits(l) {
      set(restricted(get(), l))
      const np = ++askedProviders
      const nl = ++askedLists
      void Promise.all([api.providers(), api.presets(), api.defaults().catch(() => get().defaults)])
        .then(([providers, presets, defaults]) => {
          if (np === askedProviders) set({ providers })
          if (nl === askedLists) set({ presets, defaults })
        })
        .catch(() => {
          // The restricted lists stay: nothing the class dropped comes back.
        })
    },
  }))
}

/** restricted is what the lists keep of what the class offers (an empty list offers every configured one). */
export function restricted(s: Pick<ProvidersState, 'providers' | 'presets' | 'defaults'>, l: ClassLimits): Pick<ProvidersState, 'providers' | 'presets' | 'defaults'> {
  const offered = l.providers ?? []
  let providers = offered.length ? s.providers.filter((p) => offered.includes(p.name)) : s.providers
  let defaults = s.defaults
  if (offered.length && defaults && !offered.includes(defaults.provider)) {
    defaults = { ...defaults, provider: offered[0] }
    providers = providers.map((p) => ({ ...p, default: p.name === offered[0] }))
  }
  const presetIds = l.presets ?? []
  const presets = presetIds.length ? s.presets.filter((p) => presetIds.includes(p.id)) : s.presets
  return { providers, presets, defaults }
}

/** defaultProvider picks the configured default when it is ready, else the first ready one. */
export function defaultProvider(list: ProviderStatus[], configured?: string | null): string | null {
  const d = list.find((p) => p.available && (configured ? p.name === configured : p.default)) ?? list.find((p) => p.default && p.available)
  return (d ?? list.find((p) => p.available))?.name ?? null
}
