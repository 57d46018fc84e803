// The classroom server's side of the api (`loopforge class`): the class
// stream's messages and the export formats. The operations themselves
// (Me, ClassSettings, Assign, PauseClass, SetSpotlight, Wall,
// RemoveStudent…) go through Api.call like every other; only the join and
// the class export are web specials (Api.joinClass, Api.fetchClassExport).

import { ClassStateType, WallType, type ClassView, type WallEntry } from './gen/wire'

/** A message of the class stream (backend/wire class.go). */
export type ClassMessage = { type: typeof ClassStateType; payload: ClassView } | { type: typeof WallType; payload: WallEntry }

/** isClassMessage tells a class stream envelope from a run's event. */
export function isClassMessage(m: unknown): m is ClassMessage {
  const t = (m as { type?: unknown } | null)?.type
  return (t === ClassStateType || t === WallType) && typeof (m as { payload?: unknown }).payload === 'object'
}

/**
 * zip: every student's final script per session, the summary, the attempts and the grade sheets; csv / md: the
 * summary table; attempts: one row per run and iteration (CSV); grades: one row per student and assignment (the
 * best run's tests passed, attempts, time); grade-tests: the best run's verdict per test.
 */
export type ClassExportFormat = 'zip' | 'csv' | 'md' | 'attempts' | 'grades' | 'grade-tests'

/** classExportURL is the download address of the class export, in the language lang with times in the zone tz. */
export function classExportURL(format: ClassExportFormat, lang?: string, tz?: string): string {
  const enc = encodeURIComponent
  return `/api/class/export?format=${enc(format)}${lang ? `&lang=${enc(lang)}` : ''}${tz ? `&tz=${enc(tz)}` : ''}`
}
