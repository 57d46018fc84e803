// Settings store: how the app looks — theme (system, light or dark),
// projector mode (larger type for a classroom) and the UI language (pt or
// en, first from the browser's). Kept across reloads.

import { createStore, type StoreApi } from 'zustand/vanilla'
import { defaultStorage, readJSON, writeJSON, type KV } from './persist'

export type ThemeChoice = 'system' | 'light' | 'dark'
export type Lang = 'en' | 'pt'

/** browserLang picks Portuguese for pt, pt-BR, pt-PT…, English otherwise. */
export function browserLang(language: string | undefined = globalThis.navigator?.language): Lang {
  return /^pt\b/i.test(language ?? '') ? 'pt' : 'en'
}

export interface SettingsState {
  theme: ThemeChoice
  projector: boolean
  lang: Lang
  /** What the system prefers (prefers-color-scheme), kept up to date. */
  systemDark: boolean
  setTheme(t: ThemeChoice): void
  cycleTheme(): void
  setProjector(on: boolean): void
  setSystemDark(dark: boolean): void
  setLang(lang: Lang): void
}

export type SettingsStore = StoreApi<SettingsState>

const KEY = 'loopforge.settings'
const order: ThemeChoice[] = ['system', 'light', 'dark']

export function effectiveTheme(s: Pick<SettingsState, 'theme' | 'systemDark'>): 'light' | 'dark' {
  if (s.theme === 'system') return s.systemDark ? 'dark' : 'light'
  return s.theme
}

export function createSettingsStore(kv: KV | null = defaultStorage(), systemDark = false, lang: Lang = browserLang()): SettingsStore {
  const saved = readJSON<SettingsState>(kv, KEY)
  const store = createStore<SettingsState>()((set, get) => ({
    theme: order.includes(saved.theme as ThemeChoice) ? (saved.theme as ThemeChoice) : 'system',
    projector: saved.projector === true,
    lang: saved.lang === 'pt' || saved.lang === 'en' ? saved.lang : lang,
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
    setLang(lang) {
      set({ lang })
    },
  }))
  store.subscribe((s) => writeJSON(kv, KEY, { theme: s.theme, projector: s.projector, lang: s.lang }))
  return store
}
