import { afterEach, describe, expect, it, vi } from 'vitest'
import { createApi, inDesktop } from './index'
import { httpApi } from './http'
import { wailsApi } from './wails'

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
    await expect(api.version()).resolves.toBe('1.2.3')
    expect(Version).toHaveBeenCalledOnce()
    expect(fetchSpy).not.toHaveBeenCalled()
  })

  it('chooses HTTP when there is no window.go', async () => {
    vi.stubGlobal('window', {})
    const fetchSpy = vi.fn().mockResolvedValue(jsonResponse({ version: '0.9.0' }))
    vi.stubGlobal('fetch', fetchSpy)

    const api = createApi()

    expect(api).not.toBe(wailsApi)
    await expect(api.version()).resolves.toBe('0.9.0')
    expect(fetchSpy).toHaveBeenCalledOnce()
  })

  it('chooses HTTP when window.go exists without the main.App binding', () => {
    expect(inDesktop({ go: {} })).toBe(false)
    expect(inDesktop({ go: { main: {} } })).toBe(false)
    expect(createApi({ go: { main: {} } })).not.toBe(wailsApi)
  })

  it('chooses HTTP when there is no window at all (not a browser)', () => {
    expect(inDesktop(undefined)).toBe(false)
    expect(createApi(undefined)).not.toBe(wailsApi)
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

  it('throws an Error naming the status on a non-200 answer', async () => {
    const fetchFn = vi.fn().mockResolvedValue(jsonResponse({ error: 'unauthorized' }, 401, 'Unauthorized'))

    const err = await httpApi(fetchFn)
      .version()
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).message).toBe('GET /api/health failed: HTTP 401 Unauthorized')
  })

  it('throws on a 500 without a status text', async () => {
    const fetchFn = vi.fn().mockResolvedValue(new Response('boom', { status: 500 }))

    await expect(httpApi(fetchFn).version()).rejects.toThrow(/^GET \/api\/health failed: HTTP 500$/)
  })

  it('throws a clear Error when the body has no version string', async () => {
    const fetchFn = vi.fn().mockResolvedValue(jsonResponse({ version: 7 }))

    await expect(httpApi(fetchFn).version()).rejects.toThrow('unexpected response: "version" is not a string')
  })

  it('lets network failures through as errors', async () => {
    const fetchFn = vi.fn().mockRejectedValue(new TypeError('Failed to fetch'))

    await expect(httpApi(fetchFn).version()).rejects.toThrow('Failed to fetch')
  })
})
