// Runs store: every run the UI knows about (live or reopened from history),
// the run shown in the Run panel, and the state of the event connection.
//
// Events are queued and folded in batches (one state update per ~frame), so
// a burst — e.g. a long run replayed from seq 0 — does not re-render once
// per token.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, ConnectionState, RunInfo, RunRequest, SessionDetail, StreamMessage } from '../api'
import { shownError, type ShownError } from '../api'
import { applyEvent, fromStored, isFinished, newRun, storedMode, type RunState } from './runModel'

export interface RunsState {
  runs: Record<string, RunState>
  /** The run shown in the Run panel. */
  activeRunId: string | null
  starting: boolean
  startError: ShownError | null
  connection: ConnectionState

  /** Starts a run and follows it; resolves to its id, or null (startError says why). */
  start(req: RunRequest): Promise<string | null>
  cancel(runId: string): Promise<void>
  /** Adds a run started elsewhere (e.g. one column of a comparison) and follows it, without making it active. */
  track(info: RunInfo, req: RunRequest): void
  /** Streams a run from the server (from seq 0), e.g. one still running when reopened. */
  watch(runId: string, init?: Partial<RunState>): void
  /** Puts a finished run from the history into the store (no network). */
  loadStored(detail: SessionDetail, runId: string): void
  setActive(runId: string | null): void
  clearStartError(): void
  /** Stops listening to every stream (tests, unmount). */
  dispose(): void
}

export type RunsStore = StoreApi<RunsState>

export interface RunsOptions {
  /** How queued events are flushed; tests pass (fn) => fn() for synchronous updates. */
  schedule?: (flush: () => void) => void
}

export function createRunsStore(api: Api, opts: RunsOptions = {}): RunsStore {
  const schedule = opts.schedule ?? ((fn) => setTimeout(fn, 16))
  const unsubs = new Map<string, () => void>()
  let queue: StreamMessage[] = []
  let scheduled = false

  const store = createStore<RunsState>()((set, get) => {
    const flush = () => {
      scheduled = false
      const batch = queue
      queue = []
      if (batch.length === 0) return
      const runs = { ...get().runs }
      for (const m of batch) {
        const r = runs[m.run_id]
        if (r) runs[m.run_id] = applyEvent(r, m)
      }
      set({ runs })
      for (const m of batch) {
        if (m.type === 'run_finished' || m.type === 'error') {
          unsubs.get(m.run_id)?.()
          unsubs.delete(m.run_id)
        }
      }
    }
    const onMessage = (m: StreamMessage) => {
      queue.push(m)
      if (!scheduled) {
        scheduled = true
        schedule(flush)
      }
    }
    const follow = (runId: string, after: number) => {
      if (unsubs.has(runId)) return
      unsubs.set(runId, api.events.subscribe(runId, after, onMessage))
    }
    /** replay folds a finished run's stored events apart, and shows the result if it was a workspace run. */
    // replay rebuilds a stored run from its events. withTests: a script
    // run whose stored iterations lack the tests' results (they are only
    // in its tested events), which it adds to the stored copy.
    const replay = (runId: string, withTests = false) => {
      if (unsubs.has(runId)) return
      let shadow = newRun({ runId })
      let done = false
      const stop = () => {
        done = true
        const off = unsubs.get(runId)
        unsubs.delete(runId)
        off?.()
      }
      const off = api.events.subscribe(runId, 0, (m) => {
        if (done) return
        if (m.type === 'error') return stop()
        shadow = applyEvent(shadow, m)
        if (m.type === 'run_started' && shadow.mode !== 'workspace' && !withTests) return stop() // a script run: the stored copy is complete
        if (m.type !== 'run_finished') return
        stop()
        const cur = get().runs[runId]
        // Only over the stored copy: a live copy already has everything.
        if (shadow.mode === 'workspace' && cur?.fromHistory) {
          set({ runs: { ...get().runs, [runId]: { ...shadow, fromHistory: true, replayed: true } } })
        } else if (withTests && cur?.fromHistory) {
          const tests = new Map(shadow.iterations.map((it) => [it.n, it.tests]))
          const iterations = cur.iterations.map((it) => ({ ...it, tests: tests.get(it.n) }))
          set({ runs: { ...get().runs, [runId]: { ...cur, iterations } } })
        }
      })
      if (done) off()
      else unsubs.set(runId, off)
    }
    const patch = (runId: string, fn: (r: RunState) => RunState) => {
      const r = get().runs[runId]
      if (r) set({ runs: { ...get().runs, [runId]: fn(r) } })
    }

    return {
      runs: {},
      activeRunId: null,
      starting: false,
      startError: null,
      connection: api.events.connection(),

      async start(req) {
        set({ starting: true, startError: null })
        try {
          const info = await api.startRun(req)
          get().track(info, req)
          set({ activeRunId: info.run_id, starting: false })
          return info.run_id
        } catch (err) {
          set({ starting: false, startError: shownError(err) })
          return null
        }
      },

      async cancel(runId) {
        const r = get().runs[runId]
        if (!r || isFinished(r)) return
        patch(runId, (x) => ({ ...x, cancelling: true, cancelError: undefined }))
        try {
          await api.cancelRun(runId)
        } catch (err) {
          patch(runId, (x) => ({ ...x, cancelling: false, cancelError: shownError(err) }))
        }
      },

      track(info, req) {
        const run = newRun({
          runId: info.run_id,
          sessionId: info.session_id,
          provider: info.provider,
          model: info.model,
          prompt: req.prompt,
          maxIterations: req.max_iterations ?? 0,
          reflect: req.reflect ?? true,
          language: req.language ?? 'python',
          // Until run_started says more: enough to lay the view out for the mode.
          mode: req.mode === 'workspace' ? 'workspace' : 'script',
          allowNetwork: req.allow_network === true,
          stdin: req.stdin ?? '',
          validate: req.validate ?? [],
          auditor: req.auditor ?? '',
        })
        set({ runs: { ...get().runs, [run.runId]: run } })
        follow(run.runId, 0)
      },

      watch(runId, init) {
        if (!get().runs[runId]) {
          set({ runs: { ...get().runs, [runId]: newRun({ runId, ...init }) } })
        }
        follow(runId, get().runs[runId].lastSeq)
      },

      loadStored(detail, runId) {
        const r = detail.runs?.find((x) => x.id === runId)
        if (!r) return
        if (r.status === 'running') {
          // Still going: stream it from the start so tokens show too.
          const existing = get().runs[runId]
          if (!existing || existing.fromHistory) {
            set({ runs: { ...get().runs, [runId]: newRun({ runId, sessionId: r.session_id, provider: r.provider, model: r.model, prompt: r.prompt || detail.prompt }) } })
          }
          follow(runId, get().runs[runId].lastSeq)
          return
        }
        const live = get().runs[runId]
        if (live && (!live.fromHistory || live.replayed) && isFinished(live)) return // the streamed copy has more detail
        const mode = storedMode(detail)
        set({ runs: { ...get().runs, [runId]: fromStored(r, detail.iterations?.[runId], r.prompt || detail.prompt, mode, detail.images?.[runId]) } })
        // The stored iterations hold no tool calls, validations or git
        // events: a workspace run (or a comparison's run, which may be one)
        // is rebuilt from its stored events, and replaces the stored copy.
        if (detail.mode !== 'script') replay(runId)
        else if ((r.tests_total ?? 0) > 0) replay(runId, true)
      },

      setActive(runId) {
        set({ activeRunId: runId })
      },

      clearStartError() {
        set({ startError: null })
      },

      dispose() {
        for (const u of unsubs.values()) u()
        unsubs.clear()
        offConnection()
      },
    }
  })

  const offConnection = api.events.onConnection((connection) => store.setState({ connection }))
  return store
}
