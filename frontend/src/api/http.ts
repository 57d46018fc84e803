import type { Api, Call, EventStream } from './api'
import { ApiError, isErrorBody, operations, toApiError } from './api'
import { EventClient, type SocketFactory } from './events'
import { routes, type OpIn, type OpName, type OpOut } from './gen/ops'
import { classExportURL, type ClassExportFormat } from './class'
import type { JoinRequest, Me } from './gen/wire'
import type { ExportFormat } from './types'

// Browser face: loopforge serve exposes the same operations as JSON under
// /api on the page's own origin, each at the route gen/ops.ts gives it. The
// access token travels in a cookie that the server sets when the tokenised
// URL is first opened, so requests stay same-origin and carry credentials;
// the websocket carries it too.

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

/** failure reads the server's {error, code, params}; anything else is named by status. */
async function failure(res: Response, method: Method, path: string): Promise<ApiError> {
  const retry = retryAfter(res.headers?.get('Retry-After') ?? null)
  try {
    const b: unknown = await res.json()
    if (isErrorBody(b) && b.error) return toApiError(b, res.status, retry)
  } catch {
    // not JSON
  }
  const detail = res.statusText ? ` ${res.statusText}` : ''
  return new ApiError(`${method} ${path} failed: HTTP ${res.status}${detail}`, res.status, undefined, undefined, retry)
}

/** retryAfter reads a Retry-After header in seconds (either form HTTP allows); undefined when absent or unreadable. */
export function retryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim())
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
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

/**
 * httpCall sends an operation as its route says, the way the server reads
 * it back (backend/server/api.go): input fields named in the path fill it,
 * those listed as query parameters go in the query string, and the rest
 * form the JSON body. A list answered as null reads as empty.
 */
function httpCall(fetchFn: typeof fetch): Call {
  return async <K extends OpName>(name: K, input: OpIn<K>): Promise<OpOut<K>> => {
    const route = routes[name]
    const values: Record<string, unknown> = Object.fromEntries(Object.entries(input))
    const inPath = new Set<string>(route.query)
    let path = route.path.replace(/\{(\w+)\}/g, (_, p: string) => {
      inPath.add(p)
      return encodeURIComponent(String(values[p] ?? ''))
    })
    if (route.query.length > 0) {
      path += '?' + route.query.map((q) => `${q}=${encodeURIComponent(String(values[q] ?? ''))}`).join('&')
    }
    const body = route.body ? Object.fromEntries(Object.entries(values).filter(([k]) => !inPath.has(k))) : undefined
    const answer = await call(fetchFn, route.method, path, body)
    // The answer is JSON from the server: its type is the contract's word.
    return (route.list ? list(answer, name) : answer) as OpOut<K>
  }
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
  const exportURL = (id: string, format: ExportFormat, runId?: string, lang?: string, tz?: string) =>
    `/api/sessions/${enc(id)}/export?format=${enc(format)}${runId ? `&run=${enc(runId)}` : ''}${lang ? `&lang=${enc(lang)}` : ''}${tz ? `&tz=${enc(tz)}` : ''}`
  const ops = operations(httpCall(f))
  return {
    face: 'web',
    ...ops,
    version: async () => field<string>(await call(f, 'GET', '/api/health'), 'version', 'string'),
    exportURL,
    fetchExport: async (id: string, format: ExportFormat, runId?: string, lang?: string, tz?: string) => {
      const path = exportURL(id, format, runId, lang, tz)
      const res = await f(path, { method: 'GET', credentials: 'same-origin' })
      if (!res.ok) throw await failure(res, 'GET', path)
      return { name: attachmentName(res.headers.get('Content-Disposition')) ?? `export.${format}`, data: await res.blob() }
    },
    saveExport: null,
    joinClass: async (req: JoinRequest) => (await call(f, 'POST', '/api/class/join', req)) as Me,
    fetchClassExport: async (format: ClassExportFormat, lang?: string, tz?: string) => {
      const path = classExportURL(format, lang, tz)
      const res = await f(path, { method: 'GET', credentials: 'same-origin' })
      if (!res.ok) throw await failure(res, 'GET', path)
      return { name: attachmentName(res.headers.get('Content-Disposition')) ?? `class.${format}`, data: await res.blob() }
    },
    chooseWorkdir: null,
    folders: async (path: string) => {
      const l = await ops.call('Folders', { path })
      return { ...l, folders: list(l.folders, 'folders') }
    },
    onWorkdirDropped: () => () => {},
    get events(): EventStream {
      // Created on first use: a page that never watches a run opens no socket.
      events ??= new EventClient({ url: () => webSocketURL(), socket: o.socket })
      return events
    },
  }
}
