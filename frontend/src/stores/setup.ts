// Setup store: the first-run facts (where the .env file goes on this
// machine, whether Python was found) and "Check again", which has the
// server read its configuration again (a key just added to .env) and then
// lists the providers and settings anew.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, Defaults, ProviderStatus } from '../api'
import { shownError, type ShownError } from '../api'
import type { Setup } from '../api/gen/wire'
import type { ProvidersStore } from './providers'

export interface SetupState {
  /** null until loaded (or when the server cannot say). */
  setup: Setup | null
  checking: boolean
  /** Why the last check failed (e.g. a loopforge.yml that no longer reads). */
  error: ShownError | null
  /** How many checks have ended, so the panel can say "still not ready" after one. */
  checks: number
  /** The user chose to go on without Python (a provider is ready). */
  dismissed: boolean
  load(): Promise<void>
  recheck(): Promise<void>
  dismiss(): void
}

export type SetupStore = StoreApi<SetupState>

export function createSetupStore(api: Api, providers: ProvidersStore): SetupStore {
  return createStore<SetupState>()((set) => ({
    setup: null,
    checking: false,
    error: null,
    checks: 0,
    dismissed: false,
    async load() {
      try {
        set({ setup: await api.call('Setup', {}) })
      } catch {
        // The panel still says what to do, without the paths.
      }
    },
    async recheck() {
      set({ checking: true, error: null })
      try {
        const setup = await api.call('ReloadConfig', {})
        await providers.getState().load()
        set({ setup })
      } catch (err) {
        set({ error: shownError(err) })
      } finally {
        set((s) => ({ checking: false, checks: s.checks + 1 }))
      }
    },
    dismiss() {
      set({ dismissed: true })
    },
  }))
}

/** What the first run still needs: a provider that is ready, Python, both, or nothing (null). */
export type Missing = 'provider' | 'python' | 'both'

/**
 * missing says what keeps this machine from a first run, once the providers
 * are listed: no profile ready, or no way to run generated code (the
 * sandbox's isolation is "" only then; an older server that sends no
 * defaults is taken as able to).
 */
export function missing(loaded: boolean, providers: ProviderStatus[], defaults: Defaults | null): Missing | null {
  if (!loaded) return null
  const noProvider = !providers.some((p) => p.available)
  const noPython = defaults != null && defaults.isolation === ''
  if (noProvider && noPython) return 'both'
  return noProvider ? 'provider' : noPython ? 'python' : null
}
