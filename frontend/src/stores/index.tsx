// One store per domain, created once per app around one Api:
//   providers — profiles and presets      composer — the run about to start
//   runs      — live and reopened runs    history  — sessions, search, delete
//   workdir   — the working directory     settings — theme, projector, language
//   compare   — the comparison shown      stats    — the history summarised
//   exports   — downloads / save dialog      setup    — the first run: .env, Python
//   classroom — who the caller is, the class and its live wall
//   repeat    — a comparison repeated to measure it (pass^N, pass@1)
// They are zustand vanilla stores: plain objects that tests drive without
// React, and that components read through selectors, so a token arriving
// for one run re-renders only what shows that run.

import { createContext, useContext, type ReactNode } from 'react'
import { useStore } from 'zustand'
import type { StoreApi } from 'zustand/vanilla'
import type { Api } from '../api'
import { createClassroomStore, type ClassroomState, type ClassroomStore } from './classroom'
import { createCompareStore, type CompareState, type CompareStore } from './compare'
import { createComposerStore, type ComposerState, type ComposerStore } from './composer'
import { browserSave, createExportsStore, type ExportsState, type ExportsStore, type SaveFile } from './exports'
import { createHistoryStore, type HistoryState, type HistoryStore } from './history'
import type { KV } from './persist'
import { createProvidersStore, type ProvidersState, type ProvidersStore } from './providers'
import { createRepeatStore, type RepeatState, type RepeatStore } from './repeat'
import { isFinished } from './runModel'
import { createRunsStore, type RunsOptions, type RunsState, type RunsStore } from './runs'
import { createSetupStore, type SetupState, type SetupStore } from './setup'
import { createSettingsStore, type Lang, type SettingsState, type SettingsStore } from './settings'
import { createStatsStore, type StatsState, type StatsStore } from './stats'
import { createWorkdirStore, type WorkdirState, type WorkdirStore } from './workdir'

export interface Stores {
  api: Api
  providers: ProvidersStore
  composer: ComposerStore
  runs: RunsStore
  history: HistoryStore
  workdir: WorkdirStore
  settings: SettingsStore
  compare: CompareStore
  stats: StatsStore
  exports: ExportsStore
  classroom: ClassroomStore
  setup: SetupStore
  repeat: RepeatStore
}

export interface StoresOptions extends RunsOptions {
  storage?: KV | null
  systemDark?: boolean
  /** The language when none was chosen yet (default: the browser's). */
  lang?: Lang
  /** Hands a downloaded export to the user (default: the browser's download). */
  saveFile?: SaveFile
}

export function createStores(api: Api, opts: StoresOptions = {}): Stores {
  const providers = createProvidersStore(api)
  const composer = createComposerStore(opts.storage)
  const runs = createRunsStore(api, opts)
  // The form starts from the configured settings as soon as they arrive.
  providers.subscribe((s, prev) => {
    if (s.loaded && !prev.loaded) composer.getState().applyDefaults(s.defaults)
  })
  // A run that just ended may have changed what the server knows of its
  // provider (a rejected key, or a call that worked again): list them anew.
  runs.subscribe((s, prev) => {
    const ended = Object.values(s.runs).some((r) => !r.fromHistory && isFinished(r) && prev.runs[r.runId] && !isFinished(prev.runs[r.runId]))
    if (ended) void providers.getState().refresh()
  })
  return {
    api,
    providers,
    composer,
    runs,
    history: createHistoryStore(api),
    workdir: createWorkdirStore(api),
    settings: createSettingsStore(opts.storage, opts.systemDark, opts.lang),
    compare: createCompareStore(api, runs),
    stats: createStatsStore(api),
    exports: createExportsStore(api, opts.saveFile),
    classroom: createClassroomStore(api, { composer, providers, storage: opts.storage, saveFile: opts.saveFile ?? browserSave }),
    setup: createSetupStore(api, providers),
    repeat: createRepeatStore(api),
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
export const useCompare = bind<CompareState>((s) => s.compare)
export const useStats = bind<StatsState>((s) => s.stats)
export const useExports = bind<ExportsState>((s) => s.exports)
export const useClassroom = bind<ClassroomState>((s) => s.classroom)
export const useSetup = bind<SetupState>((s) => s.setup)
export const useRepeat = bind<RepeatState>((s) => s.repeat)
