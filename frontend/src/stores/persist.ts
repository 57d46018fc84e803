// A tiny localStorage helper: settings survive a reload, and a browser that
// refuses storage (private mode, tests) just forgets them.

export interface KV {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

export function defaultStorage(): KV | null {
  try {
    return globalThis.localStorage ?? null
  } catch {
    return null
  }
}

export function readJSON<T>(kv: KV | null, key: string): Partial<T> {
  try {
    const raw = kv?.getItem(key)
    const v: unknown = raw ? JSON.parse(raw) : null
    return v && typeof v === 'object' ? (v as Partial<T>) : {}
  } catch {
    return {}
  }
}

export function writeJSON(kv: KV | null, key: string, value: unknown): void {
  try {
    kv?.setItem(key, JSON.stringify(value))
  } catch {
    // full or refused: not worth bothering the user
  }
}
