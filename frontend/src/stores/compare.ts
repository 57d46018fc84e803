// Compare store: the comparison shown in the Run panel — one session, one
// column per provider (each a run in the runs store), and the comparison
// table once the columns are done. A comparison can be started here or
// reopened from the history; one provider can be re-run in a fresh thread.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, CompareRequest, ComparisonRow, RunMode, RunRequest, SessionDetail } from '../api'
import { shownError, type ShownError } from '../api'
import { storedMode } from './runModel'
import type { RunsStore } from './runs'

export interface CompareColumn {
  runId: string
  provider: string
  model: string
}

export interface CompareState {
  /** The comparison session shown; null = none (the Run panel shows a single run). */
  sessionId: string | null
  prompt: string
  /**
   * workspace: each provider edited its own git worktree, and its result is
   * a patch. Such a column cannot be re-run (its worktree is gone or kept
   * for inspection): a new comparison is the way to try again.
   */
  mode: RunMode
  columns: CompareColumn[]
  /** The request that started it, reused to re-run one provider. */
  request: RunRequest | null
  starting: boolean
  startError: ShownError | null
  rows: ComparisonRow[]
  rowsLoading: boolean
  rowsError: ShownError | null
  /** Provider being re-run (its request in flight). */
  rerunning: string | null
  rerunError: ShownError | null

  start(req: CompareRequest): Promise<string | null>
  /** Shows a stored comparison session (finished or still running). */
  open(detail: SessionDetail): void
  cancel(runId: string): Promise<void>
  cancelAll(): Promise<void>
  /** Starts the same prompt again on one provider; its column follows the new run. Not in workspace mode. */
  rerun(provider: string): Promise<string | null>
  /** Fetches the comparison table. */
  loadRows(): Promise<void>
  close(): void
}

export type CompareStore = StoreApi<CompareState>

const empty = {
  sessionId: null,
  prompt: '',
  mode: 'script' as RunMode,
  columns: [],
  request: null,
  starting: false,
  startError: null,
  rows: [],
  rowsLoading: false,
  rowsError: null,
  rerunning: null,
  rerunError: null,
}

export function createCompareStore(api: Api, runs: RunsStore): CompareStore {
  let rowsSeq = 0
  return createStore<CompareState>()((set, get) => ({
    ...empty,

    async start(req) {
      set({ ...empty, starting: true })
      try {
        const info = await api.startCompare(req)
        const { providers: _, ...single } = req
        void _
        const columns = (info.runs ?? []).map((r) => {
          runs.getState().track(r, single)
          return { runId: r.run_id, provider: r.provider, model: r.model }
        })
        set({ sessionId: info.session_id, prompt: req.prompt, mode: req.mode === 'workspace' ? 'workspace' : 'script', columns, request: single, starting: false })
        return info.session_id
      } catch (err) {
        set({ starting: false, startError: shownError(err) })
        return null
      }
    },

    open(detail) {
      // The newest run of each provider is its column (a re-run replaces the old one).
      const latest = new Map<string, CompareColumn>()
      for (const r of detail.runs ?? []) {
        latest.set(r.provider, { runId: r.id, provider: r.provider, model: r.model })
        runs.getState().loadStored(detail, r.id)
      }
      const first = detail.runs?.[0]
      set({
        ...empty,
        sessionId: detail.id,
        prompt: detail.prompt,
        // A comparison session's mode is "compare": its runs say whether they were workspace runs.
        mode: storedMode(detail),
        columns: [...latest.values()],
        request: first
          ? { prompt: first.prompt || detail.prompt, max_iterations: first.max_iterations, reflect: first.reflect, language: first.language }
          : { prompt: detail.prompt },
      })
    },

    async cancel(runId) {
      await runs.getState().cancel(runId)
    },

    async cancelAll() {
      await Promise.all(get().columns.map((c) => runs.getState().cancel(c.runId)))
    },

    async rerun(provider) {
      const { sessionId, request, columns, mode } = get()
      if (!sessionId || !request || mode === 'workspace') return null
      set({ rerunning: provider, rerunError: null })
      // The network opt-in was for the runs started from the form, not for a re-run.
      const { allow_network: _net, ...rest } = request
      void _net
      const req: RunRequest = { ...rest, session_id: sessionId, provider, fresh: true }
      try {
        const info = await api.startRun(req)
        runs.getState().track(info, req)
        if (get().sessionId !== sessionId) return info.run_id
        set({
          rerunning: null,
          columns: columns.map((c) => (c.provider === provider ? { runId: info.run_id, provider: info.provider, model: info.model } : c)),
        })
        return info.run_id
      } catch (err) {
        set({ rerunning: null, rerunError: shownError(err) })
        return null
      }
    },

    async loadRows() {
      const id = get().sessionId
      if (!id) return
      const my = ++rowsSeq
      set({ rowsLoading: true, rowsError: null })
      try {
        const rows = await api.comparison(id)
        if (my === rowsSeq) set({ rows, rowsLoading: false })
      } catch (err) {
        if (my === rowsSeq) set({ rowsLoading: false, rowsError: shownError(err) })
      }
    },

    close() {
      rowsSeq++
      set({ ...empty })
    },
  }))
}

/** visibleRows keeps the table rows of the runs shown as columns (a re-run replaces its provider's row). */
export function visibleRows(rows: ComparisonRow[], columns: CompareColumn[]): ComparisonRow[] {
  const ids = new Set(columns.map((c) => c.runId))
  const shown = rows.filter((r) => ids.has(r.run_id))
  return shown.length ? shown : rows
}
