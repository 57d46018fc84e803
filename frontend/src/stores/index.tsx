// One store per domain (design §7.13), created once per app around one Api:
//   providers — profiles and presets      composer — the run about to start
//   runs      — live and reopened runs    history  — sessions, search, delete
//   workdir   — the working directory     settings — theme and projector mode
// They are zustand vanilla stores: plain objects that tests drive without
// React, and that components read through selectors, so a token arriving
// for one run re-renders only what shows that run.

import { createContext, useContext, type ReactNode } from 'react'
import { useStore } from 'zustand'
import type { StoreApi } from 'zustand/vanilla'
import type { Api } from '../api'
import { createComposerStore, type ComposerState, type ComposerStore } from './composer'
import { createHistoryStore, type HistoryState, type HistoryStore } from './history'
import type { KV } from './persist'
import { createProvidersStore, type ProvidersState, type ProvidersStore } from './providers'
import { createRunsStore, type RunsOptions, type RunsState, type RunsStore } from './runs'
import { createSettingsStore, type SettingsState, type SettingsStore } from './settings'
import { createWorkdirStore, type WorkdirState, type WorkdirStore } from './workdir'

export interface Stores {
  api: Api
  providers: ProvidersStore
  composer: ComposerStore
  runs: RunsStore
  history: HistoryStore
  workdir: WorkdirStore
  settings: SettingsStore
}

export interface StoresOptions extends RunsOptions {
  storage?: KV | null
  systemDark?: boolean
}

export function createStores(api: Api, opts: StoresOptions = {}): Stores {
  return {
    api,
    providers: createProvidersStore(api),
    composer: createComposerStore(opts.storage),
    runs: createRunsStore(api, opts),
    history: createHistoryStore(api),
    workdir: createWorkdirStore(api),
    settings: createSettingsStore(opts.storage, opts.systemDark),
  }
}

const StoresContext = createContext<Stores | null>(null)

export function StoresProvider({ stores, children }: { stores: Stores; children: ReactNode }) {
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>
}

export function useStores(): Stores {
  const s = useContext(StoresContext)
  if (!s) throw new Error('useStores outside StoresProvider')
  return s
}

function bind<S>(pick: (s: Stores) => StoreApi<S>) {
  return function use<T>(selector: (state: S) => T): T {
    return useStore(pick(useStores()), selector)
  }
}

export const useProviders = bind<ProvidersState>((s) => s.providers)
export const useComposer = bind<ComposerState>((s) => s.composer)
export const useRuns = bind<RunsState>((s) => s.runs)
export const useHistory = bind<HistoryState>((s) => s.history)
export const useWorkdir = bind<WorkdirState>((s) => s.workdir)
export const useSettings = bind<SettingsState>((s) => s.settings)
