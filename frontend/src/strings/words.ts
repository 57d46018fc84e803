// Helpers the string tables share to word a message from its parameters
// (English and Portuguese alike).
import { currentLang } from './lang'

/** The parameters of an error, by name (backend: service.Code). */
export type P = Record<string, string>

/** detailed adds what the program or the system printed to a head: "exit 1: ValueError: boom". */
export function detailed(head: string, p: P): string {
  return p.detail ? `${head}: ${p.detail}` : head
}

/**
 * osName names the system of a sandbox note's "os" parameter, set where
 * loopforge has no file or network isolation at all (Windows, macOS); ""
 * on Linux, whose notes say how to get it instead.
 */
export function osName(os: string | undefined): string {
  return os === 'windows' ? 'Windows' : os === 'macos' ? 'macOS' : ''
}

/** retryReason: why a call is retried, with the HTTP status when there was one. */
export function retryReason(p: P, words: Record<string, string>): string {
  const why = words[p.reason ?? ''] ?? p.reason ?? ''
  return p.status ? `${why} (HTTP ${p.status})` : why
}

/** said adds what the provider itself said, when it said something. */
export function said(p: P): string {
  return p.message ? ` ${currentLang() === 'pt' ? 'Ele disse' : 'It said'}: ${p.message}` : ''
}

/** The most models a missing-model message names; the picker shows them all. */
const maxModelsNamed = 40

/**
 * modelsNamed is a ", "-separated list of models cut to maxModelsNamed,
 * with how many more there are (in words from more(n)).
 */
export function modelsNamed(list: string, more: (n: number) => string): string {
  const all = list.split(', ').filter(Boolean)
  if (all.length <= maxModelsNamed) return all.join(', ')
  return `${all.slice(0, maxModelsNamed).join(', ')} ${more(all.length - maxModelsNamed)}`
}

/**
 * noteText words the execution note named by p.note from notes, the table of
 * the same language; an unknown code shows itself (as execNote in index.ts).
 */
export function noteText(notes: Record<string, (p: P) => string>, p: P): string {
  const f = notes[p.note ?? '']
  return f ? f(p) : (p.note ?? '')
}
