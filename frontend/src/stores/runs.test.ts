import { beforeEach, describe, expect, it } from 'vitest'
import { fakeApi, finished, sessionDetail, twoIterationRun, workspaceRun, workspaceSessionDetail, type FakeApi } from '../test/fakeApi'
import { createRunsStore, type RunsStore } from './runs'

let api: FakeApi
let store: RunsStore

beforeEach(() => {
  api = fakeApi()
  store = createRunsStore(api, { schedule: (fn) => fn() })
})

describe('runs store', () => {
  it('starts a run, follows its events from seq 0, and stops listening when it finishes', async () => {
    const id = await store.getState().start({ prompt: 'greet', provider: 'fake', max_iterations: 5 })
    expect(id).toBe('run-1')
    expect(api.startRun).toHaveBeenCalledWith({ prompt: 'greet', provider: 'fake', max_iterations: 5 })
    expect(store.getState().activeRunId).toBe('run-1')
    expect(store.getState().runs['run-1']).toMatchObject({ status: 'starting', provider: 'fake', prompt: 'greet' })
    expect(api.events.subscribed).toEqual([{ runId: 'run-1', after: 0 }])

    for (const e of twoIterationRun('run-1')) api.events.emit(e)
    const r = store.getState().runs['run-1']
    expect(r.status).toBe('success')
    expect(r.iterations).toHaveLength(2)
    expect(api.events.unsubscribed).toEqual(['run-1'])
  })

  it('batches a burst of events into one update', async () => {
    let flush: (() => void) | null = null
    store = createRunsStore(api, { schedule: (fn) => (flush = fn) })
    await store.getState().start({ prompt: 'x' })
    let updates = 0
    store.subscribe(() => updates++)
    for (const e of twoIterationRun('run-1')) api.events.emit(e)
    expect(updates).toBe(0)
    flush!()
    expect(updates).toBe(1)
    expect(store.getState().runs['run-1'].status).toBe('success')
  })

  it('shows why a run did not start', async () => {
    api.startRun.mockRejectedValueOnce(new Error('no API key: set OPENAI_API_KEY in the environment or in a .env file'))
    expect(await store.getState().start({ prompt: 'x', provider: 'openai' })).toBeNull()
    expect(store.getState()).toMatchObject({ starting: false, startError: { message: 'no API key: set OPENAI_API_KEY in the environment or in a .env file' } })
    store.getState().clearStartError()
    expect(store.getState().startError).toBeNull()
  })

  it('cancels: marks the run as stopping until run_finished says cancelled', async () => {
    await store.getState().start({ prompt: 'x' })
    api.events.emit(twoIterationRun('run-1')[0])
    await store.getState().cancel('run-1')
    expect(api.cancelRun).toHaveBeenCalledWith('run-1')
    expect(store.getState().runs['run-1'].cancelling).toBe(true)
    api.events.emit(finished('run-1', 2, 'cancelled', 'cancelled by the user'))
    expect(store.getState().runs['run-1']).toMatchObject({ status: 'cancelled', cancelling: false })
  })

  it('shows a failed cancel and lets the user try again', async () => {
    await store.getState().start({ prompt: 'x' })
    api.cancelRun.mockRejectedValueOnce(new Error('connection refused'))
    await store.getState().cancel('run-1')
    expect(store.getState().runs['run-1']).toMatchObject({ cancelling: false, cancelError: { message: 'connection refused' } })
  })

  it('does not cancel a finished run', async () => {
    await store.getState().start({ prompt: 'x' })
    api.events.emit(finished('run-1', 1, 'success'))
    await store.getState().cancel('run-1')
    expect(api.cancelRun).not.toHaveBeenCalled()
  })

  it('mirrors the connection state', () => {
    api.events.setState({ status: 'reconnecting', attempt: 2, retryInMs: 1000, reason: 'connection lost' })
    expect(store.getState().connection).toMatchObject({ status: 'reconnecting', attempt: 2 })
  })

  it('loads a finished run from the history without the network', () => {
    store.getState().loadStored(sessionDetail(), 'run-old')
    expect(store.getState().runs['run-old']).toMatchObject({ status: 'success', fromHistory: true })
    expect(api.events.subscribed).toEqual([])
  })

  it('lays out a stored run of a workspace session as a workspace run, even in a comparison session', () => {
    const d = sessionDetail()
    d.mode = 'compare'
    d.kind = 'workspace'
    store.getState().loadStored(d, 'run-old')
    expect(store.getState().runs['run-old'].mode).toBe('workspace')
    const s = sessionDetail()
    s.mode = 'compare'
    store.getState().loadStored({ ...s, runs: [{ ...s.runs![0], id: 'run-py' }], iterations: {} }, 'run-py')
    expect(store.getState().runs['run-py'].mode).toBe('script')
  })

  it('streams a run that is still going when reopened from the history', () => {
    const d = sessionDetail()
    d.runs![0].status = 'running'
    store.getState().loadStored(d, 'run-old')
    expect(store.getState().runs['run-old']).toMatchObject({ status: 'starting', fromHistory: false })
    expect(api.events.subscribed).toEqual([{ runId: 'run-old', after: 0 }])
  })

  it('keeps the streamed copy of a run over the stored one', async () => {
    await store.getState().start({ prompt: 'x' })
    for (const e of twoIterationRun('run-1')) api.events.emit(e)
    const streamed = store.getState().runs['run-1']
    const d = sessionDetail()
    d.runs![0].id = 'run-1'
    d.iterations = { 'run-1': d.iterations!['run-old'] }
    store.getState().loadStored(d, 'run-1')
    expect(store.getState().runs['run-1']).toBe(streamed)
  })

  it('lays a started workspace run out as one before its first event', async () => {
    await store.getState().start({ prompt: 'x', mode: 'workspace', validate: ['pytest -q'], auditor: 'a', allow_network: true })
    expect(store.getState().runs['run-1']).toMatchObject({ mode: 'workspace', validate: ['pytest -q'], auditor: 'a', allowNetwork: true })
  })

  it('rebuilds a stored workspace run from its events, replacing the stored copy once they are all in', () => {
    const d = workspaceSessionDetail()
    store.getState().loadStored(d, 'run-ws')
    // At once: the stored copy (no tool calls or validations in the iterations table).
    expect(store.getState().runs['run-ws']).toMatchObject({ mode: 'workspace', fromHistory: true, status: 'success' })
    expect(api.events.subscribed).toEqual([{ runId: 'run-ws', after: 0 }])
    const ev = workspaceRun('run-ws')
    for (const e of ev.slice(0, -1)) api.events.emit(e)
    expect(store.getState().runs['run-ws'].iterations[0].tools).toEqual([]) // not half a replay
    api.events.emit(ev[ev.length - 1])
    const r = store.getState().runs['run-ws']
    expect(r).toMatchObject({ fromHistory: true, replayed: true, status: 'success', git: { commit: '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432' } })
    expect(r.iterations[0].validations[0]).toMatchObject({ passed: false, exitCode: 1 })
    expect(r.iterations[1].tools.map((t) => t.name)).toEqual(['write_file'])
    expect(api.events.unsubscribed).toEqual(['run-ws'])
    // Opened again: the replayed copy stays, and nothing is subscribed again.
    store.getState().loadStored(d, 'run-ws')
    expect(store.getState().runs['run-ws']).toBe(r)
    expect(api.events.subscribed).toHaveLength(1)
  })

  it('in a comparison, stops replaying a run as soon as it turns out to be a script run', () => {
    const d = sessionDetail()
    d.mode = 'compare'
    store.getState().loadStored(d, 'run-old')
    const stored = store.getState().runs['run-old']
    expect(api.events.subscribed).toEqual([{ runId: 'run-old', after: 0 }])
    api.events.emit(twoIterationRun('run-old')[0])
    expect(api.events.unsubscribed).toEqual(['run-old'])
    expect(store.getState().runs['run-old']).toBe(stored)
  })

  it('watch resumes a known run from its last seq', async () => {
    await store.getState().start({ prompt: 'x' })
    const ev = twoIterationRun('run-1')
    for (const e of ev.slice(0, 5)) api.events.emit(e)
    store.getState().dispose()
    store.getState().watch('run-1')
    expect(api.events.subscribed.at(-1)).toEqual({ runId: 'run-1', after: 5 })
  })
})
