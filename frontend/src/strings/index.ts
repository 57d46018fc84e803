import type { ExecNote } from '../api/gen/event'
import { en, type Strings } from './en'
import { pt } from './pt'
import { setCurrentLang, type Lang } from './lang'

// Every UI string: an English table (en.ts) and a Portuguese one (pt.ts) with
// the same keys (the type checker lists anything missing), the error words
// apart (errors.en.ts, errors.pt.ts). `strings` is the table in use;
// setLanguage swaps it and the app re-renders (App.tsx).

export type { Strings } from './en'
export { currentLang, locale, timeZone, type Lang } from './lang'

// let: reassigned by setLanguage; importers see the live binding
export let strings: Strings = en

/** setLanguage makes the table of lang the one in use. */
export function setLanguage(lang: Lang): void {
  strings = lang === 'pt' ? pt : en
  setCurrentLang(lang)
}

/**
 * errorText words an error from the backend by its code and parameters in
 * the language in use; without a code, or with one this table does not know
 * (a newer backend), it is the backend's English text.
 */
export function errorText(code: string | undefined, params: Record<string, string> | undefined, fallback: string): string {
  const f = code ? strings.errors[code] : undefined
  return f ? f(params ?? {}) : fallback
}

/** The codes of failures of the provider itself, which "The provider said:" may introduce. */
const providerCodes = new Set([
  'provider.auth',
  'provider.forbidden',
  'provider.rate_limit',
  'provider.server',
  'provider.bad_request',
  'provider.unreachable',
  'provider.protocol',
  'provider.error',
  'provider.timeout',
  'provider.refused',
  'provider.interrupted',
  'provider.token_cap',
  'provider.model_not_found',
  'provider.cli_failed',
  'provider.cli_output',
])

/**
 * The codes of provider failures that trying again may cure (backend:
 * service.Code.Retryable, the same list): the run view offers to try the
 * iteration again for these.
 */
const retryCodes = new Set(['provider.interrupted', 'provider.server', 'provider.rate_limit', 'provider.unreachable', 'provider.timeout'])

/** isRetryable: the code is a provider failure that trying the iteration again may cure. */
export function isRetryable(code: string | undefined): boolean {
  return code != null && retryCodes.has(code)
}

/** isProviderError: the code is the provider's own failure, not one of loopforge's refusals. */
export function isProviderError(code: string | undefined): boolean {
  return code != null && providerCodes.has(code)
}

/** What the UI knows of one execution, to word how it ended. */
export interface ExecFacts {
  status: string
  exitCode: number
  signal?: string
  stderr?: string
  outcome?: ExecNote
  /** The backend's English, for a code this table does not know. */
  description?: string
}

/**
 * execOutcome words how an execution ended in the language in use: by its
 * outcome code, else (a run recorded before outcomes, or a history replay)
 * from its status, exit code and the last line of its stderr.
 */
export function execOutcome(x: ExecFacts): string {
  const w = strings.live.exec
  if (x.outcome) {
    const f = w.outcome[x.outcome.code]
    if (f) return f(x.outcome.params ?? {})
    if (x.description) return x.description
  }
  const detail = lastLine(x.stderr ?? '')
  switch (x.status) {
    case 'ok':
      return w.outcome.ok({})
    case 'error':
      return x.signal ? w.outcome.signal({ signal: x.signal, detail }) : w.outcome.exit({ exit: String(x.exitCode), detail })
    case 'memory':
      return w.outcome.memory({ detail })
  }
  return w.status[x.status] ?? x.description ?? x.status
}

/** execNote words one note about an execution; an unknown code shows the backend's English (fallback). */
export function execNote(n: ExecNote, fallback = ''): string {
  const f = strings.live.exec.notes[n.code]
  return f ? f(n.params ?? {}) : fallback || n.code
}

/** lastLine is the last non-blank line of s, shortened as the sandbox shortens it. */
function lastLine(s: string): string {
  const lines = s.trimEnd().split('\n')
  const last = (lines[lines.length - 1] ?? '').trim()
  return last.length > 200 ? `${last.slice(0, 200)}…` : last
}

/** noticeText words a run's notice in the language in use: loopforge's by code, a provider's own as it came. */
export function noticeText(l: { message: string; code?: string; params?: Record<string, string> }): string {
  const f = l.code ? strings.live.notices[l.code] : undefined
  return f ? f(l.params ?? {}) : l.message
}
