// The event websocket client, shared by both faces (only the URL differs).
//
// Protocol (backend/server/ws.go): send {"op":"subscribe","run_id","after":N}
// to get every event with seq > N, stored ones first and then live ones.
// The server drops a client that cannot keep up (close 1013) and any socket
// can die; the client then reconnects and resubscribes each unfinished run
// from the last seq it delivered, and drops anything at or below that seq, so
// listeners see every event exactly once and in order.
//
// The class stream ({"op":"subscribe_class"}, class mode) carries no run id
// and no seq: each message is the whole current state of the class or of
// one student's wall line, so after a reconnect the client just asks again
// and the server sends everything anew.

import type { ConnectionState, EventStream } from './api'
import { errorMessage } from './api'
import { isClassMessage, type ClassMessage } from './class'
import { StreamOpSubscribeClass } from './gen/wire'
import type { StreamMessage, StreamRequest } from './types'

/** The part of WebSocket the client uses (a fake implements it in tests). */
export interface SocketLike {
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((ev: unknown) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  onclose: ((ev: { code: number; reason: string }) => void) | null
  onerror: ((ev: unknown) => void) | null
}

export type SocketFactory = (url: string) => SocketLike

export interface EventClientOptions {
  /** Where to connect; asked again before every attempt (the desktop face fetches it). */
  url: () => Promise<string> | string
  socket?: SocketFactory
  /** Delays before reconnect attempts 1, 2, …; the last repeats. */
  backoffMs?: number[]
  /** Delay after a deliberate "too slow" drop (1013): catch up at once. */
  tooSlowDelayMs?: number
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (handle: unknown) => void
}

interface Subscription {
  runId: string
  lastSeq: number
  finished: boolean
  listeners: Set<(m: StreamMessage) => void>
}

const CLOSE_TRY_AGAIN_LATER = 1013
/** The server's "you may not listen" (a removed student): retrying would only be refused again. */
const CLOSE_POLICY_VIOLATION = 1008

export class EventClient implements EventStream {
  private readonly opts: Required<EventClientOptions>
  private readonly subs = new Map<string, Subscription>()
  private readonly stateListeners = new Set<(s: ConnectionState) => void>()
  private readonly classListeners = new Set<(m: ClassMessage) => void>()
  private socket: SocketLike | null = null
  /** true from the start of an attempt until its socket closes. */
  private busy = false
  private open = false
  private attempt = 0
  private timer: unknown = null
  private state: ConnectionState = { status: 'idle' }
  private stopped = false

  constructor(opts: EventClientOptions) {
    this.opts = {
      url: opts.url,
      socket: opts.socket ?? ((url) => new WebSocket(url) as unknown as SocketLike),
      backoffMs: opts.backoffMs?.length ? opts.backoffMs : [300, 1000, 2000, 4000, 8000],
      tooSlowDelayMs: opts.tooSlowDelayMs ?? 50,
      setTimer: opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms)),
      clearTimer: opts.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>)),
    }
  }

  connection(): ConnectionState {
    return this.state
  }

  onConnection(listener: (s: ConnectionState) => void): () => void {
    this.stateListeners.add(listener)
    return () => this.stateListeners.delete(listener)
  }

  subscribe(runId: string, after: number, onMessage: (m: StreamMessage) => void): () => void {
    let sub = this.subs.get(runId)
    if (!sub) {
      sub = { runId, lastSeq: after, finished: false, listeners: new Set() }
      this.subs.set(runId, sub)
      if (this.open) this.sendSubscribe(sub)
    }
    sub.listeners.add(onMessage)
    this.ensureConnected()
    const s = sub
    return () => {
      s.listeners.delete(onMessage)
      if (s.listeners.size === 0 && this.subs.get(runId) === s) {
        this.subs.delete(runId)
        if (this.open && !s.finished) this.send({ op: 'unsubscribe', run_id: runId })
      }
    }
  }

  subscribeClass(onMessage: (m: ClassMessage) => void): () => void {
    const first = this.classListeners.size === 0
    this.classListeners.add(onMessage)
    if (first && this.open) this.sendSubscribeClass()
    this.ensureConnected()
    return () => {
      this.classListeners.delete(onMessage)
    }
  }

  /** Closes the socket for good (tests, page unload). */
  close(): void {
    this.stopped = true
    if (this.timer != null) this.opts.clearTimer(this.timer)
    this.timer = null
    const s = this.socket
    this.socket = null
    this.open = false
    this.busy = false
    s?.close(1000, 'bye')
    this.setState({ status: 'idle' })
  }

  private ensureConnected(): void {
    if (this.stopped || this.busy || this.timer != null) return
    void this.connect()
  }

  private async connect(): Promise<void> {
    this.busy = true
    this.setState(this.attempt === 0 ? { status: 'connecting' } : this.state)
    let url: string
    try {
      url = await this.opts.url()
    } catch (err) {
      this.retry(`cannot find the event server: ${errorMessage(err)}`)
      return
    }
    if (this.stopped) {
      this.busy = false
      return
    }
    let ws: SocketLike
    try {
      ws = this.opts.socket(url)
    } catch (err) {
      this.retry(errorMessage(err))
      return
    }
    this.socket = ws
    ws.onopen = () => {
      if (this.socket !== ws) return
      this.open = true
      this.attempt = 0
      this.setState({ status: 'open' })
      for (const sub of this.subs.values()) {
        if (!sub.finished) this.sendSubscribe(sub)
      }
      if (this.classListeners.size > 0) this.sendSubscribeClass()
    }
    ws.onmessage = (ev) => {
      if (this.socket === ws) this.receive(ev.data)
    }
    ws.onerror = () => {
      // A close event always follows; reconnecting is decided there.
    }
    ws.onclose = (ev) => {
      if (this.socket !== ws) return
      this.socket = null
      this.open = false
      this.busy = false
      if (this.stopped) return
      if (ev.code === CLOSE_POLICY_VIOLATION) {
        this.attempt = 0
        this.setState({ status: 'refused', reason: ev.reason || 'the server refused this connection' })
      } else if (ev.code === CLOSE_TRY_AGAIN_LATER) {
        this.retry('the connection was too slow; catching up', this.opts.tooSlowDelayMs)
      } else {
        this.retry(ev.reason || `connection lost (code ${ev.code})`)
      }
    }
  }

  private retry(reason: string, delay?: number): void {
    this.busy = false
    if (this.stopped) return
    this.attempt++
    const b = this.opts.backoffMs
    const ms = delay ?? b[Math.min(this.attempt - 1, b.length - 1)]
    this.setState({ status: 'reconnecting', attempt: this.attempt, retryInMs: ms, reason })
    this.timer = this.opts.setTimer(() => {
      this.timer = null
      if (this.subs.size === 0 && this.classListeners.size === 0) {
        // Nobody is listening: connect again on the next subscribe.
        this.attempt = 0
        this.setState({ status: 'idle' })
        return
      }
      void this.connect()
    }, ms)
  }

  private receive(data: unknown): void {
    let m: StreamMessage
    try {
      m = JSON.parse(String(data)) as StreamMessage
    } catch {
      return
    }
    if (isClassMessage(m)) {
      for (const l of [...this.classListeners]) l(m)
      return
    }
    const sub = this.subs.get(m?.run_id)
    if (!sub) return
    if (m.type === 'error') {
      // The server will not serve this run (unknown id): do not ask again.
      sub.finished = true
    } else {
      if (typeof m.seq !== 'number' || m.seq <= sub.lastSeq) return // already delivered
      sub.lastSeq = m.seq
      if (m.type === 'run_finished') sub.finished = true
    }
    for (const l of [...sub.listeners]) l(m)
  }

  private sendSubscribe(sub: Subscription): void {
    this.send({ op: 'subscribe', run_id: sub.runId, after: sub.lastSeq })
  }

  private sendSubscribeClass(): void {
    this.send({ op: StreamOpSubscribeClass, run_id: '' })
  }

  private send(v: StreamRequest): void {
    try {
      this.socket?.send(JSON.stringify(v))
    } catch {
      // The socket is closing; onclose reconnects and resubscribes.
    }
  }

  private setState(s: ConnectionState): void {
    this.state = s
    for (const l of [...this.stateListeners]) l(s)
  }
}
