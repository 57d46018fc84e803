// History store: the session list (with search), the session open in the
// History view, and deleting.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, SessionDetail, SessionSummary } from '../api'
import { shownError, type ShownError } from '../api'

export interface HistoryState {
  query: string
  sessions: SessionSummary[]
  loading: boolean
  loaded: boolean
  error: ShownError | null
  selectedId: string | null
  detail: SessionDetail | null
  detailLoading: boolean
  detailError: ShownError | null
  deleteError: ShownError | null

  setQuery(q: string): void
  load(): Promise<void>
  open(id: string): Promise<SessionDetail | null>
  close(): void
  remove(id: string): Promise<boolean>
}

export type HistoryStore = StoreApi<HistoryState>

export const HISTORY_LIMIT = 200

export function createHistoryStore(api: Api): HistoryStore {
  let loadSeq = 0
  let openSeq = 0
  return createStore<HistoryState>()((set, get) => ({
    query: '',
    sessions: [],
    loading: false,
    loaded: false,
    error: null,
    selectedId: null,
    detail: null,
    detailLoading: false,
    detailError: null,
    deleteError: null,

    setQuery(q) {
      set({ query: q })
    },

    async load() {
      const my = ++loadSeq // answers to older searches are dropped
      set({ loading: true, error: null })
      try {
        const sessions = await api.sessions(get().query.trim(), HISTORY_LIMIT)
        if (my === loadSeq) set({ sessions, loading: false, loaded: true })
      } catch (err) {
        if (my === loadSeq) set({ loading: false, error: shownError(err) })
      }
    },

    async open(id) {
      const my = ++openSeq
      set({ selectedId: id, detailLoading: true, detailError: null, deleteError: null })
      try {
        const detail = await api.session(id)
        if (my !== openSeq) return null
        set({ detail, detailLoading: false })
        return detail
      } catch (err) {
        if (my === openSeq) set({ detail: null, detailLoading: false, detailError: shownError(err) })
        return null
      }
    },

    close() {
      openSeq++
      set({ selectedId: null, detail: null, detailError: null, detailLoading: false, deleteError: null })
    },

    async remove(id) {
      set({ deleteError: null })
      try {
        await api.deleteSession(id)
      } catch (err) {
        set({ deleteError: shownError(err) })
        return false
      }
      const s = get()
      set({ sessions: s.sessions.filter((x) => x.id !== id) })
      if (s.selectedId === id) get().close()
      return true
    },
  }))
}
