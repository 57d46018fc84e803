import type { Api } from './api'

// Browser face: loopforge serve exposes the same operations as JSON under
// /api on the page's own origin. The access token travels in a cookie that
// the server sets when the tokenised URL is first opened, so requests stay
// same-origin and carry credentials.

async function getJSON(path: string, fetchFn: typeof fetch): Promise<unknown> {
  const res = await fetchFn(path, {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  })
  if (!res.ok) {
    const detail = res.statusText ? ` ${res.statusText}` : ''
    throw new Error(`GET ${path} failed: HTTP ${res.status}${detail}`)
  }
  return res.json()
}

function field<T>(body: unknown, name: string, type: 'string'): T {
  const value = (body as Record<string, unknown> | null)?.[name]
  if (typeof value !== type) {
    throw new Error(`unexpected response: "${name}" is not a ${type}`)
  }
  return value as T
}

/** httpApi builds the browser implementation; fetchFn is injectable for tests. */
export function httpApi(fetchFn: typeof fetch = (...args) => fetch(...args)): Api {
  return {
    version: async () => field<string>(await getJSON('/api/health', fetchFn), 'version', 'string'),
  }
}
