import type { Api, EventStream } from './api'
import { ApiError } from './api'
import { EventClient, type SocketFactory } from './events'
import type {
  CompareInfo,
  CompareRequest,
  ComparisonRow,
  Defaults,
  ExportFormat,
  FolderListing,
  Preset,
  ProviderStatus,
  RunInfo,
  RunRequest,
  SessionDetail,
  SessionSummary,
  Stats,
} from './types'

// Browser face: loopforge serve exposes the same operations as JSON under
// /api on the page's own origin. The access token travels in a cookie that
// the server sets when the tokenised URL is first opened, so requests stay
// same-origin and carry credentials; the websocket carries it too.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

async function call(fetchFn: typeof fetch, method: Method, path: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
  }
  if (body !== undefined) init.body = JSON.stringify(body)
  const res = await fetchFn(path, init)
  if (!res.ok) throw await failure(res, method, path)
  return res.json()
}

/** failure reads the server's {error: "one line"}; anything else is named by status. */
async function failure(res: Response, method: Method, path: string): Promise<ApiError> {
  let message = ''
  try {
    const b = (await res.json()) as { error?: unknown }
    if (typeof b?.error === 'string') message = b.error
  } catch {
    // not JSON
  }
  if (!message) {
    const detail = res.statusText ? ` ${res.statusText}` : ''
    message = `${method} ${path} failed: HTTP ${res.status}${detail}`
  }
  return new ApiError(message, res.status)
}

/**
 * attachmentName reads the file name of a Content-Disposition header, in
 * either form Go's mime.FormatMediaType writes: filename="a.py", or
 * filename*=utf-8''%C3%A1.py for names that are not plain ASCII.
 */
export function attachmentName(header: string | null): string | null {
  if (!header) return null
  const ext = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header)
  if (ext) {
    try {
      return decodeURIComponent(ext[2].trim())
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header)
  if (!plain) return null
  return plain[1] != null ? plain[1].replace(/\\(.)/g, '$1') : plain[2]
}

function field<T>(body: unknown, name: string, type: 'string'): T {
  const value = (body as Record<string, unknown> | null)?.[name]
  if (typeof value !== type) {
    throw new ApiError(`unexpected response: "${name}" is not a ${type}`)
  }
  return value as T
}

function list<T>(body: unknown, what: string): T[] {
  if (body == null) return []
  if (!Array.isArray(body)) throw new ApiError(`unexpected response: ${what} is not a list`)
  return body as T[]
}

/** webSocketURL is the event endpoint on the page's own origin. */
export function webSocketURL(loc: Pick<Location, 'protocol' | 'host'> = globalThis.location): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/api/ws`
}

export interface HttpApiOptions {
  fetchFn?: typeof fetch
  socket?: SocketFactory
  events?: EventStream
}

/** httpApi builds the browser implementation; fetch and the socket are injectable for tests. */
export function httpApi(opts: HttpApiOptions | typeof fetch = {}): Api {
  const o: HttpApiOptions = typeof opts === 'function' ? { fetchFn: opts } : opts
  const f = o.fetchFn ?? ((...args: Parameters<typeof fetch>) => fetch(...args))
  let events = o.events
  const enc = encodeURIComponent
  const exportURL = (id: string, format: ExportFormat, runId?: string) =>
    `/api/sessions/${enc(id)}/export?format=${enc(format)}${runId ? `&run=${enc(runId)}` : ''}`
  return {
    face: 'web',
    version: async () => field<string>(await call(f, 'GET', '/api/health'), 'version', 'string'),
    providers: async () => list<ProviderStatus>(await call(f, 'GET', '/api/providers'), 'providers'),
    presets: async () => list<Preset>(await call(f, 'GET', '/api/presets'), 'presets'),
    defaults: async () => (await call(f, 'GET', '/api/defaults')) as Defaults,
    startRun: async (req: RunRequest) => (await call(f, 'POST', '/api/runs', req)) as RunInfo,
    startCompare: async (req: CompareRequest) => (await call(f, 'POST', '/api/compare', req)) as CompareInfo,
    comparison: async (id: string) => list<ComparisonRow>(await call(f, 'GET', `/api/sessions/${enc(id)}/comparison`), 'comparison'),
    stats: async () => (await call(f, 'GET', '/api/stats')) as Stats,
    exportURL,
    fetchExport: async (id: string, format: ExportFormat, runId?: string) => {
      const path = exportURL(id, format, runId)
      const res = await f(path, { method: 'GET', credentials: 'same-origin' })
      if (!res.ok) throw await failure(res, 'GET', path)
      return { name: attachmentName(res.headers.get('Content-Disposition')) ?? `export.${format}`, data: await res.blob() }
    },
    saveExport: null,
    cancelRun: async (id: string) => {
      await call(f, 'POST', `/api/runs/${enc(id)}/cancel`)
    },
    sessions: async (q: string, limit: number) =>
      list<SessionSummary>(await call(f, 'GET', `/api/sessions?q=${enc(q)}&limit=${limit}`), 'sessions'),
    session: async (id: string) => (await call(f, 'GET', `/api/sessions/${enc(id)}`)) as SessionDetail,
    deleteSession: async (id: string) => {
      await call(f, 'DELETE', `/api/sessions/${enc(id)}`)
    },
    workdir: async () => field<string>(await call(f, 'GET', '/api/workdir'), 'path', 'string'),
    setWorkdir: async (path: string) => field<string>(await call(f, 'PUT', '/api/workdir', { path }), 'path', 'string'),
    chooseWorkdir: null,
    folders: async (path: string) => {
      const l = (await call(f, 'GET', `/api/folders?path=${enc(path)}`)) as Partial<FolderListing> | null
      if (typeof l?.path !== 'string') throw new ApiError('unexpected response: "path" is not a string')
      return { path: l.path, parent: typeof l.parent === 'string' ? l.parent : '', folders: list(l.folders, 'folders') }
    },
    onWorkdirDropped: () => () => {},
    get events(): EventStream {
      // Created on first use: a page that never watches a run opens no socket.
      events ??= new EventClient({ url: () => webSocketURL(), socket: o.socket })
      return events
    },
  }
}
