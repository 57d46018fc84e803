import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError, errorMessage } from './api'
import { httpApi, webSocketURL } from './http'
import { createApi, inDesktop } from './index'
import { createWailsApi, eventsURL, wailsApi } from './wails'

function jsonResponse(body: unknown, status = 200, statusText = 'OK'): Response {
  return new Response(JSON.stringify(body), {
    status,
    statusText,
    headers: { 'Content-Type': 'application/json' },
  })
}

afterEach(() => {
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})

describe('createApi', () => {
  it('chooses the Wails bindings when window.go.main.App exists', async () => {
    const Version = vi.fn().mockResolvedValue('1.2.3')
    vi.stubGlobal('window', { go: { main: { App: { Version } } } })
    const fetchSpy = vi.fn()
    vi.stubGlobal('fetch', fetchSpy)

    const api = createApi()

    expect(api).toBe(wailsApi)
    expect(api.face).toBe('desktop')
    await expect(api.version()).resolves.toBe('1.2.3')
    expect(Version).toHaveBeenCalledOnce()
    expect(fetchSpy).not.toHaveBeenCalled()
  })

  it('chooses HTTP when there is no window.go', async () => {
    vi.stubGlobal('window', {})
    const fetchSpy = vi.fn().mockResolvedValue(jsonResponse({ version: '0.9.0' }))
    vi.stubGlobal('fetch', fetchSpy)

    const api = createApi()

    expect(api.face).toBe('web')
    await expect(api.version()).resolves.toBe('0.9.0')
    expect(fetchSpy).toHaveBeenCalledOnce()
  })

  it('chooses HTTP when window.go exists without the main.App binding', () => {
    expect(inDesktop({ go: {} })).toBe(false)
    expect(inDesktop({ go: { main: {} } })).toBe(false)
    expect(createApi({ go: { main: {} } }).face).toBe('web')
  })

  it('chooses HTTP when there is no window at all (not a browser)', () => {
    expect(inDesktop(undefined)).toBe(false)
    expect(createApi(undefined).face).toBe('web')
  })
})

describe('httpApi', () => {
  it('GETs /api/health same-origin and returns the version', async () => {
    const fetchFn = vi.fn().mockResolvedValue(jsonResponse({ version: '0.1.0', extra: true }))

    await expect(httpApi(fetchFn).version()).resolves.toBe('0.1.0')

    expect(fetchFn).toHaveBeenCalledOnce()
    const [url, init] = fetchFn.mock.calls[0] as [string, RequestInit]
    expect(url).toBe('/api/health')
    expect(init.credentials).toBe('same-origin')
    expect(init.method ?? 'GET').toBe('GET')
  })

  it("reports the server's own error message with its status", async () => {
    const fetchFn = vi.fn().mockResolvedValue(jsonResponse({ error: 'missing or wrong token: open the URL printed by `loopforge serve`' }, 401, 'Unauthorized'))

    const err = await httpApi(fetchFn)
      .version()
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).message).toBe('missing or wrong token: open the URL printed by `loopforge serve`')
    expect((err as ApiError).status).toBe(401)
  })

  it('names method, path and status when the body has no error message', async () => {
    const fetchFn = vi.fn().mockResolvedValue(new Response('boom', { status: 500 }))
    await expect(httpApi(fetchFn).version()).rejects.toThrow(/^GET \/api\/health failed: HTTP 500$/)

    const fetch2 = vi.fn().mockResolvedValue(jsonResponse({ nope: 1 }, 404, 'Not Found'))
    await expect(httpApi(fetch2).deleteSession('x')).rejects.toThrow('DELETE /api/sessions/x failed: HTTP 404 Not Found')
  })

  it('throws a clear Error when the body has no version string', async () => {
    const fetchFn = vi.fn().mockResolvedValue(jsonResponse({ version: 7 }))

    await expect(httpApi(fetchFn).version()).rejects.toThrow('unexpected response: "version" is not a string')
  })

  it('lets network failures through as errors', async () => {
    const fetchFn = vi.fn().mockRejectedValue(new TypeError('Failed to fetch'))

    await expect(httpApi(fetchFn).version()).rejects.toThrow('Failed to fetch')
  })

  it('maps every operation to its endpoint', async () => {
    const calls: Array<[string, string, unknown]> = []
    const answers: Record<string, unknown> = {
      'GET /api/providers': [{ name: 'fake' }],
      'GET /api/presets': [{ id: 'p' }],
      'POST /api/runs': { run_id: 'r1', session_id: 's1', provider: 'fake', model: 'm' },
      'POST /api/runs/r%2F1/cancel': { ok: true },
      'GET /api/sessions?q=list%20%26%20dict&limit=50': [{ id: 's1' }],
      'GET /api/sessions/s1': { id: 's1', runs: [] },
      'DELETE /api/sessions/s1': { ok: true },
      'GET /api/workdir': { path: '/w' },
      'PUT /api/workdir': { path: '/w2' },
      'GET /api/folders?path=': { path: '/home/ana', parent: '/home', folders: [{ name: 'aulas', path: '/home/ana/aulas' }] },
      'GET /api/folders?path=%2F': { path: '/', parent: '', folders: null },
    }
    const fetchFn = vi.fn(async (url: string, init: RequestInit) => {
      const key = `${init.method} ${url}`
      calls.push([init.method!, url, init.body ? JSON.parse(init.body as string) : undefined])
      if (!(key in answers)) return jsonResponse({ error: `unexpected ${key}` }, 404)
      return jsonResponse(answers[key], key === 'POST /api/runs' ? 201 : 200)
    })
    const api = httpApi(fetchFn as unknown as typeof fetch)

    expect(await api.providers()).toEqual([{ name: 'fake' }])
    expect(await api.presets()).toEqual([{ id: 'p' }])
    expect(await api.startRun({ prompt: 'hi', provider: 'fake', max_iterations: 3, reflect: false, timeout_seconds: 10, language: 'python' })).toMatchObject({
      run_id: 'r1',
    })
    await api.cancelRun('r/1')
    expect(await api.sessions('list & dict', 50)).toEqual([{ id: 's1' }])
    expect(await api.session('s1')).toMatchObject({ id: 's1' })
    await api.deleteSession('s1')
    expect(await api.workdir()).toBe('/w')
    expect(await api.setWorkdir('/w2')).toBe('/w2')
    expect(calls.find((c) => c[1] === '/api/runs')?.[2]).toEqual({
      prompt: 'hi',
      provider: 'fake',
      max_iterations: 3,
      reflect: false,
      timeout_seconds: 10,
      language: 'python',
    })
    expect(calls.find((c) => c[0] === 'PUT')?.[2]).toEqual({ path: '/w2' })
    expect(api.chooseWorkdir).toBeNull()
    expect(await api.folders!('')).toEqual({ path: '/home/ana', parent: '/home', folders: [{ name: 'aulas', path: '/home/ana/aulas' }] })
    expect(await api.folders!('/')).toEqual({ path: '/', parent: '', folders: [] })
  })

  it('shows why a folder cannot be listed', async () => {
    const fetchFn = vi.fn().mockResolvedValue(jsonResponse({ error: 'cannot list /root: permission denied' }, 400, 'Bad Request'))
    await expect(httpApi(fetchFn).folders!('/root')).rejects.toThrow('cannot list /root: permission denied')
    expect(fetchFn.mock.calls[0][0]).toBe('/api/folders?path=%2Froot')
  })

  it('shows why a workdir was refused', async () => {
    const fetchFn = vi.fn().mockResolvedValue(jsonResponse({ error: 'workdir /nope: no such directory' }, 400, 'Bad Request'))
    await expect(httpApi(fetchFn).setWorkdir('/nope')).rejects.toThrow('workdir /nope: no such directory')
  })

  it('treats a null list as empty', async () => {
    const fetchFn = vi.fn().mockResolvedValue(jsonResponse(null))
    await expect(httpApi(fetchFn).sessions('', 10)).resolves.toEqual([])
  })

  it('builds the websocket URL on the page origin', () => {
    expect(webSocketURL({ protocol: 'http:', host: '127.0.0.1:8080' })).toBe('ws://127.0.0.1:8080/api/ws')
    expect(webSocketURL({ protocol: 'https:', host: 'example.test' })).toBe('wss://example.test/api/ws')
  })
})

describe('wailsApi', () => {
  it('forwards each operation to the binding of the same name, with its wire input', async () => {
    const App = {
      Providers: vi.fn().mockResolvedValue([{ name: 'claude' }]),
      Presets: vi.fn().mockResolvedValue([]),
      StartRun: vi.fn().mockResolvedValue({ run_id: 'r1' }),
      CancelRun: vi.fn().mockResolvedValue(undefined),
      Sessions: vi.fn().mockResolvedValue([]),
      Session: vi.fn().mockResolvedValue({ id: 's1' }),
      DeleteSession: vi.fn().mockResolvedValue(undefined),
      Workdir: vi.fn().mockResolvedValue({ path: '/w' }),
      SetWorkdir: vi.fn().mockResolvedValue({ path: '/w2' }),
      ChooseWorkdir: vi.fn().mockResolvedValue({ path: '/picked' }),
    }
    vi.stubGlobal('window', { go: { main: { App } } })
    const api = createWailsApi()
    expect(await api.providers()).toEqual([{ name: 'claude' }])
    expect(await api.presets()).toEqual([])
    expect(await api.startRun({ prompt: 'x' })).toEqual({ run_id: 'r1' })
    expect(App.StartRun).toHaveBeenCalledWith({ prompt: 'x' })
    await api.cancelRun('r1')
    expect(App.CancelRun).toHaveBeenCalledWith({ id: 'r1' })
    await api.sessions('q', 20)
    expect(App.Sessions).toHaveBeenCalledWith({ q: 'q', limit: 20 })
    await api.session('s1')
    expect(App.Session).toHaveBeenCalledWith({ id: 's1' })
    await api.deleteSession('s1')
    expect(App.DeleteSession).toHaveBeenCalledWith({ id: 's1' })
    expect(await api.workdir()).toBe('/w')
    expect(await api.setWorkdir('/w2')).toBe('/w2')
    expect(App.SetWorkdir).toHaveBeenCalledWith({ path: '/w2' })
    expect(await api.chooseWorkdir!()).toBe('/picked')
    expect(api.folders).toBeNull()
  })

  it('turns a binding rejection (a plain string) into an ApiError with that text', async () => {
    const App = { SetWorkdir: vi.fn().mockRejectedValue('workdir /x: not a directory') }
    vi.stubGlobal('window', { go: { main: { App } } })
    const err = await createWailsApi()
      .setWorkdir('/x')
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as Error).message).toBe('workdir /x: not a directory')
  })

  it('hears folder drops through the Wails runtime events', () => {
    const handlers = new Map<string, (...a: unknown[]) => void>()
    const off = vi.fn()
    const runtime = {
      EventsOnMultiple: vi.fn((name: string, cb: (...a: unknown[]) => void) => {
        handlers.set(name, cb)
        return off
      }),
    }
    vi.stubGlobal('window', { go: { main: { App: {} } }, runtime })
    const changed = vi.fn()
    const failed = vi.fn()
    const stop = createWailsApi().onWorkdirDropped(changed, failed)
    handlers.get('workdir:changed')!('/dropped/folder')
    handlers.get('workdir:error')!('not a directory: /dropped/file.txt')
    expect(changed).toHaveBeenCalledWith('/dropped/folder')
    expect(failed).toHaveBeenCalledWith('not a directory: /dropped/file.txt')
    stop()
    expect(off).toHaveBeenCalledTimes(2)
  })

  it('opens the event socket at the endpoint the desktop app reports, with its token', () => {
    expect(eventsURL({ url: 'ws://127.0.0.1:5555/api/ws', token: 'a b' })).toBe('ws://127.0.0.1:5555/api/ws?token=a%20b')
    expect(eventsURL({ url: 'ws://h/api/ws?x=1', token: 't' })).toBe('ws://h/api/ws?x=1&token=t')
  })
})

describe('errorMessage', () => {
  it('reads Errors, strings and anything else', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom')
    expect(errorMessage('plain')).toBe('plain')
    expect(errorMessage({ code: 1 })).toBe('{"code":1}')
  })
})
