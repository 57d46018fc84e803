import { locale } from './strings/lang'

// Small formatting helpers shared by the views.

/** fixed writes v with exactly digits decimals in the UI's language: 1.5, 1,5 (no thousands grouping). */
export function fixed(v: number, digits: number, lang = locale()): string {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }).format(v)
}

/** clock formats milliseconds as m:ss (or h:mm:ss). */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  const ss = String(s).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`
}

/** duration formats a short span: 850 ms, 1.2 s, 2:05. */
export function duration(ms: number | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${fixed(ms / 1000, 1)} s`
  return clock(ms)
}

/** count formats token counts compactly: 950, 1.2k, 34k. */
export function count(n: number): string {
  if (n < 1000) return String(n)
  if (n < 10_000) return `${fixed(n / 1000, 1)}k`
  return `${Math.round(n / 1000)}k`
}

/**
 * when formats an ISO time for a note (a key rejected at …), in the UI's
 * language (not the browser's): today's times alone, other days with their
 * date. The history uses stamp, which names today and yesterday.
 */
export function when(iso: string | undefined, now = new Date(), lang = locale()): string {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const sameDay = d.toDateString() === now.toDateString()
  const time = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' }).format(d)
  if (sameDay) return time
  const date = new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', year: d.getFullYear() === now.getFullYear() ? undefined : 'numeric' })
  return `${date.format(d)} ${time}`
}

/**
 * stamp formats an ISO time for the history, in the UI's language and time
 * zone (the browser's unless zone names one): "today 03:26", "yesterday
 * 14:02", else the date and the time ("14 Nov 03:26", with the year when it
 * is not now's), so sessions of different days never look alike. The
 * relative words are Intl's (RelativeTimeFormat), in every language.
 */
export function stamp(iso: string | undefined, now = new Date(), lang = locale(), zone?: string): string {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const inZone = zone ? { timeZone: zone } : {}
  const time = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', ...inZone }).format(d)
  const [day, today] = [civilDay(d, zone), civilDay(now, zone)]
  const back = today.n - day.n
  if (back === 0 || back === 1) {
    return `${new Intl.RelativeTimeFormat(lang, { numeric: 'auto' }).format(-back, 'day')} ${time}`
  }
  const date = new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', year: day.year === today.year ? undefined : 'numeric', ...inZone })
  return `${date.format(d)} ${time}`
}

/** civilDay is the calendar day of d in zone (local when undefined): its year and a day number to subtract. */
function civilDay(d: Date, zone: string | undefined): { year: number; n: number } {
  const parts = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'numeric', day: 'numeric', timeZone: zone }).formatToParts(d)
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  const year = part('year')
  return { year, n: Date.UTC(year, part('month') - 1, part('day')) / 86_400_000 }
}

/** bytes formats a size in binary units, as loopforge.yml writes them: 512 B, 64 KiB, 8 MiB, 1 GiB, 1.5 GiB. */
export function bytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = n
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  // One decimal at most, and none when it is .0 (1 GiB, not 1.0 GiB).
  const r = Math.round(v * 10) / 10
  return `${Number.isInteger(r) ? r : fixed(r, 1)} ${units[i]}`
}

/** integer writes a whole number with the UI's thousands separator: 262,144 or 262.144. */
export function integer(n: number, lang = locale()): string {
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 0 }).format(n)
}

/** utf8Length is how many bytes s takes in UTF-8, the unit of loopforge's size limits. */
export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length
}

/** seconds formats a configured time limit: 45 s, 5 min, 1 min 30 s, 2 h. */
export function seconds(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—'
  const t = Math.round(s)
  if (t < 60) return `${t} s`
  if (t % 3600 === 0) return `${t / 3600} h`
  const m = Math.floor(t / 60)
  const rest = t % 60
  return rest ? `${m} min ${rest} s` : `${m} min`
}
