import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ConnectionState } from './api'
import { EventClient, type SocketLike } from './events'
import type { StreamMessage } from './types'

// A fake server side of the websocket: each connection records what the
// client sent, and the test pushes frames or closes it.
class FakeSocket implements SocketLike {
  sent: Array<Record<string, unknown>> = []
  closed: { code?: number; reason?: string } | null = null
  onopen: ((ev: unknown) => void) | null = null
  onmessage: ((ev: { data: unknown }) => void) | null = null
  onclose: ((ev: { code: number; reason: string }) => void) | null = null
  onerror: ((ev: unknown) => void) | null = null
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data) as Record<string, unknown>)
  }
  close(code?: number, reason?: string) {
    this.closed = { code, reason }
  }
  // server side
  accept() {
    this.onopen?.({})
  }
  push(...frames: unknown[]) {
    for (const f of frames) this.onmessage?.({ data: JSON.stringify(f) })
  }
  drop(code: number, reason = '') {
    this.onerror?.({})
    this.onclose?.({ code, reason })
  }
}

function ev(runId: string, seq: number, type = 'token', payload: unknown = { iteration: 1, phase: 'generate', text: `t${seq}` }) {
  return { type, run_id: runId, seq, ts: '2026-11-21T10:00:00Z', payload }
}

let sockets: FakeSocket[]
let states: ConnectionState[]
let client: EventClient

function make(opts: Partial<ConstructorParameters<typeof EventClient>[0]> = {}) {
  client = new EventClient({
    url: () => 'ws://127.0.0.1:1/api/ws',
    socket: (url) => {
      const s = new FakeSocket(url)
      sockets.push(s)
      return s
    },
    backoffMs: [100, 200, 400],
    tooSlowDelayMs: 10,
    ...opts,
  })
  client.onConnection((s) => states.push(s))
  return client
}

/** Lets the client's async connect (it awaits the URL) reach the socket. */
const settle = () => vi.advanceTimersByTimeAsync(0)

beforeEach(() => {
  vi.useFakeTimers()
  sockets = []
  states = []
})
afterEach(() => {
  client?.close()
  vi.useRealTimers()
})

describe('EventClient', () => {
  it('connects on the first subscribe and asks for events after the given seq', async () => {
    make()
    expect(sockets).toHaveLength(0)
    const got: StreamMessage[] = []
    client.subscribe('r1', 3, (m) => got.push(m))
    await settle()
    expect(sockets).toHaveLength(1)
    expect(client.connection().status).toBe('connecting')
    sockets[0].accept()
    expect(client.connection().status).toBe('open')
    expect(sockets[0].sent).toEqual([{ op: 'subscribe', run_id: 'r1', after: 3 }])
    sockets[0].push(ev('r1', 4), ev('r1', 5))
    expect(got.map((m) => (m as { seq: number }).seq)).toEqual([4, 5])
  })

  it('sends a subscribe at once when the socket is already open', async () => {
    make()
    client.subscribe('r1', 0, () => {})
    await settle()
    sockets[0].accept()
    client.subscribe('r2', 7, () => {})
    expect(sockets[0].sent).toEqual([
      { op: 'subscribe', run_id: 'r1', after: 0 },
      { op: 'subscribe', run_id: 'r2', after: 7 },
    ])
  })

  it('after a "too slow" drop (1013) reconnects, resubscribes from the last seq seen, and delivers no duplicate', async () => {
    make()
    const got: number[] = []
    client.subscribe('r1', 0, (m) => got.push((m as { seq: number }).seq))
    await settle()
    sockets[0].accept()
    sockets[0].push(ev('r1', 1), ev('r1', 2), ev('r1', 3))
    sockets[0].drop(1013, 'client too slow; resubscribe from the last seq')

    expect(client.connection()).toMatchObject({ status: 'reconnecting', attempt: 1, retryInMs: 10 })
    await vi.advanceTimersByTimeAsync(10)
    expect(sockets).toHaveLength(2)
    sockets[1].accept()
    expect(sockets[1].sent).toEqual([{ op: 'subscribe', run_id: 'r1', after: 3 }])
    // A server that replays from a little earlier must not cause duplicates.
    sockets[1].push(ev('r1', 2), ev('r1', 3), ev('r1', 4), ev('r1', 5), ev('r1', 4))
    expect(got).toEqual([1, 2, 3, 4, 5])
    expect(client.connection().status).toBe('open')
  })

  it('after a "you may not listen" close (1008) does not retry, and connects anew on the next subscribe', async () => {
    make()
    client.subscribe('r1', 0, () => {})
    await settle()
    sockets[0].accept()
    sockets[0].drop(1008, 'removed from the class')
    expect(client.connection()).toEqual({ status: 'refused', reason: 'removed from the class' })
    await vi.advanceTimersByTimeAsync(60_000)
    expect(sockets).toHaveLength(1)
    client.subscribe('r2', 0, () => {})
    await settle()
    expect(sockets).toHaveLength(2)
  })

  it('backs off between failed attempts and reports each one, then recovers', async () => {
    make()
    client.subscribe('r1', 0, () => {})
    await settle()
    sockets[0].drop(1006) // refused before opening
    expect(client.connection()).toMatchObject({ status: 'reconnecting', attempt: 1, retryInMs: 100 })
    await vi.advanceTimersByTimeAsync(100)
    sockets[1].drop(1006)
    expect(client.connection()).toMatchObject({ status: 'reconnecting', attempt: 2, retryInMs: 200 })
    await vi.advanceTimersByTimeAsync(200)
    sockets[2].drop(1006)
    expect(client.connection()).toMatchObject({ status: 'reconnecting', attempt: 3, retryInMs: 400 })
    await vi.advanceTimersByTimeAsync(400)
    sockets[3].drop(1006)
    expect(client.connection()).toMatchObject({ attempt: 4, retryInMs: 400 }) // the last delay repeats
    await vi.advanceTimersByTimeAsync(400)
    sockets[4].accept()
    expect(client.connection().status).toBe('open')
    expect(sockets[4].sent).toEqual([{ op: 'subscribe', run_id: 'r1', after: 0 }])
    // attempts start over after a success
    sockets[4].drop(1006)
    expect(client.connection()).toMatchObject({ attempt: 1, retryInMs: 100 })
  })

  it('does not resubscribe to a run that finished, nor ask again after a subscription error', async () => {
    make()
    const a: string[] = []
    const b: string[] = []
    const c: string[] = []
    client.subscribe('done', 0, (m) => a.push(m.type))
    client.subscribe('bad', 0, (m) => b.push(m.type))
    client.subscribe('live', 0, (m) => c.push(m.type))
    await settle()
    expect(sockets).toHaveLength(1) // one socket for any number of runs
    sockets[0].accept()
    sockets[0].push(ev('done', 1), ev('done', 2, 'run_finished', { status: 'success' }))
    sockets[0].push({ type: 'error', run_id: 'bad', payload: { message: 'run not found: bad' } })
    sockets[0].push(ev('live', 1))
    expect(a).toEqual(['token', 'run_finished'])
    expect(b).toEqual(['error'])
    sockets[0].drop(1006)
    await vi.advanceTimersByTimeAsync(100)
    sockets[1].accept()
    expect(sockets[1].sent).toEqual([{ op: 'subscribe', run_id: 'live', after: 1 }])
  })

  it('unsubscribes on the server when the last listener leaves, and ignores that run afterwards', async () => {
    make()
    const got: number[] = []
    const off = client.subscribe('r1', 0, (m) => got.push((m as { seq: number }).seq))
    await settle()
    sockets[0].accept()
    sockets[0].push(ev('r1', 1))
    off()
    expect(sockets[0].sent.at(-1)).toEqual({ op: 'unsubscribe', run_id: 'r1' })
    sockets[0].push(ev('r1', 2))
    expect(got).toEqual([1])
  })

  it('goes idle instead of reconnecting when nobody listens any more', async () => {
    make()
    const off = client.subscribe('r1', 0, () => {})
    await settle()
    sockets[0].accept()
    off()
    sockets[0].drop(1006)
    await vi.advanceTimersByTimeAsync(100)
    expect(sockets).toHaveLength(1)
    expect(client.connection().status).toBe('idle')
    client.subscribe('r2', 0, () => {})
    await settle()
    expect(sockets).toHaveLength(2)
  })

  it('retries when the endpoint cannot be found (desktop asks a binding for it)', async () => {
    let calls = 0
    make({
      url: async () => {
        calls++
        if (calls === 1) throw new Error('binding not ready')
        return 'ws://127.0.0.1:2/api/ws?token=abc'
      },
    })
    client.subscribe('r1', 0, () => {})
    await settle()
    expect(client.connection()).toMatchObject({ status: 'reconnecting', reason: 'cannot find the event server: binding not ready' })
    await vi.advanceTimersByTimeAsync(100)
    expect(sockets).toHaveLength(1)
    expect(sockets[0].url).toBe('ws://127.0.0.1:2/api/ws?token=abc')
  })

  it('ignores frames that are not JSON or belong to no subscription', async () => {
    make()
    const got: StreamMessage[] = []
    client.subscribe('r1', 0, (m) => got.push(m))
    await settle()
    sockets[0].accept()
    sockets[0].onmessage?.({ data: 'not json' })
    sockets[0].push(ev('other', 1))
    sockets[0].push({ type: 'token', run_id: 'r1', payload: {} }) // no seq
    expect(got).toEqual([])
  })

  it('close() stops for good', async () => {
    make()
    client.subscribe('r1', 0, () => {})
    await settle()
    sockets[0].accept()
    client.close()
    expect(sockets[0].closed).toEqual({ code: 1000, reason: 'bye' })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(sockets).toHaveLength(1)
    expect(states.at(-1)).toEqual({ status: 'idle' })
  })
})

describe('EventClient: the class stream', () => {
  const classState = (paused: boolean) => ({ type: 'class_state', payload: { id: 'c1', name: 'Turma A', paused, limits: {}, usage: {} } })
  const wallLine = (name: string) => ({ type: 'wall', payload: { student_id: `s-${name}`, name, joined_at: '2026-11-21T10:00:00Z', usage: {} } })

  it('asks for the class once connected, hands class_state and wall messages to its listeners, and none to run listeners', async () => {
    make()
    const got: unknown[] = []
    const runGot: StreamMessage[] = []
    client.subscribe('r1', 0, (m) => runGot.push(m))
    client.subscribeClass((m) => got.push(m))
    await settle()
    sockets[0].accept()
    expect(sockets[0].sent).toContainEqual({ op: 'subscribe_class', run_id: '' })
    expect(sockets[0].sent.filter((m) => m.op === 'subscribe_class')).toHaveLength(1)
    sockets[0].push(classState(false), wallLine('Ana'), ev('r1', 1))
    expect(got).toEqual([classState(false), wallLine('Ana')])
    expect(runGot).toHaveLength(1)
  })

  it('connects for the class stream alone, and asks again after a reconnect (the server sends the whole state anew)', async () => {
    make()
    const got: unknown[] = []
    client.subscribeClass((m) => got.push(m))
    await settle()
    expect(sockets).toHaveLength(1)
    sockets[0].accept()
    sockets[0].push(classState(false))
    sockets[0].drop(1006)
    await vi.advanceTimersByTimeAsync(100)
    expect(sockets).toHaveLength(2)
    sockets[1].accept()
    expect(sockets[1].sent).toContainEqual({ op: 'subscribe_class', run_id: '' })
    sockets[1].push(classState(true))
    expect(got).toEqual([classState(false), classState(true)])
  })

  it('a subscription made while open is sent at once; an unsubscribed listener hears nothing more', async () => {
    make()
    client.subscribe('r1', 0, () => {})
    await settle()
    sockets[0].accept()
    const got: unknown[] = []
    const off = client.subscribeClass((m) => got.push(m))
    expect(sockets[0].sent).toContainEqual({ op: 'subscribe_class', run_id: '' })
    sockets[0].push(wallLine('Ana'))
    off()
    sockets[0].push(wallLine('Bia'))
    expect(got).toEqual([wallLine('Ana')])
  })
})
