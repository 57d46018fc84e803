// Workdir store: the working directory shown in the header. The web face sets
// it from a typed path (the server validates it); the desktop face also has
// the native folder dialog and folder drops on the window.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api } from '../api'
import { errorMessage } from '../api'

export interface WorkdirState {
  path: string
  loaded: boolean
  saving: boolean
  error: string | null
  canChoose: boolean
  load(): Promise<void>
  set(path: string): Promise<boolean>
  choose(): Promise<void>
  clearError(): void
  dispose(): void
}

export type WorkdirStore = StoreApi<WorkdirState>

export function createWorkdirStore(api: Api): WorkdirStore {
  const store = createStore<WorkdirState>()((set) => ({
    path: '',
    loaded: false,
    saving: false,
    error: null,
    canChoose: api.chooseWorkdir != null,
    async load() {
      try {
        set({ path: await api.workdir(), loaded: true })
      } catch (err) {
        set({ loaded: true, error: errorMessage(err) })
      }
    },
    async set(path) {
      set({ saving: true, error: null })
      try {
        set({ path: await api.setWorkdir(path.trim()), saving: false })
        return true
      } catch (err) {
        set({ saving: false, error: errorMessage(err) })
        return false
      }
    },
    async choose() {
      if (!api.chooseWorkdir) return
      set({ saving: true, error: null })
      try {
        set({ path: await api.chooseWorkdir(), saving: false })
      } catch (err) {
        set({ saving: false, error: errorMessage(err) })
      }
    },
    clearError() {
      set({ error: null })
    },
    dispose() {
      off()
    },
  }))
  const off = api.onWorkdirDropped(
    (path) => store.setState({ path, error: null }),
    (message) => store.setState({ error: message }),
  )
  return store
}
