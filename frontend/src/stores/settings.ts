// Settings store: how the app looks — theme (system, light or dark) and
// projector mode (larger type for a classroom). Kept across reloads.

import { createStore, type StoreApi } from 'zustand/vanilla'
import { defaultStorage, readJSON, writeJSON, type KV } from './persist'

export type ThemeChoice = 'system' | 'light' | 'dark'

export interface SettingsState {
  theme: ThemeChoice
  projector: boolean
  /** What the system prefers (prefers-color-scheme), kept up to date. */
  systemDark: boolean
  setTheme(t: ThemeChoice): void
  cycleTheme(): void
  setProjector(on: boolean): void
  setSystemDark(dark: boolean): void
}

export type SettingsStore = StoreApi<SettingsState>

const KEY = 'loopforge.settings'
const order: ThemeChoice[] = ['system', 'light', 'dark']

export function effectiveTheme(s: Pick<SettingsState, 'theme' | 'systemDark'>): 'light' | 'dark' {
  if (s.theme === 'system') return s.systemDark ? 'dark' : 'light'
  return s.theme
}

export function createSettingsStore(kv: KV | null = defaultStorage(), systemDark = false): SettingsStore {
  const saved = readJSON<SettingsState>(kv, KEY)
  const store = createStore<SettingsState>()((set, get) => ({
    theme: order.includes(saved.theme as ThemeChoice) ? (saved.theme as ThemeChoice) : 'system',
    projector: saved.projector === true,
    systemDark,
    setTheme(theme) {
      set({ theme })
    },
    cycleTheme() {
      set({ theme: order[(order.indexOf(get().theme) + 1) % order.length] })
    },
    setProjector(projector) {
      set({ projector })
    },
    setSystemDark(systemDark) {
      set({ systemDark })
    },
  }))
  store.subscribe((s) => writeJSON(kv, KEY, { theme: s.theme, projector: s.projector }))
  return store
}
