// Stats store: the history summarised (GET /api/stats), loaded when the
// Stats view opens.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, Stats } from '../api'
import { shownError, type ShownError } from '../api'

export interface StatsState {
  stats: Stats | null
  loading: boolean
  error: ShownError | null
  load(): Promise<void>
}

export type StatsStore = StoreApi<StatsState>

export function createStatsStore(api: Api): StatsStore {
  let seq = 0
  return createStore<StatsState>()((set) => ({
    stats: null,
    loading: false,
    error: null,
    async load() {
      const my = ++seq
      set({ loading: true, error: null })
      try {
        const stats = await api.stats()
        if (my === seq) set({ stats, loading: false })
      } catch (err) {
        if (my === seq) set({ loading: false, error: shownError(err) })
      }
    },
  }))
}
