// The language in use, apart from the string tables so that format.ts and the
// tables themselves can read it without importing the tables (no import cycle).
// setLanguage (index.ts) sets it together with the table in use.

export type Lang = 'en' | 'pt'

let current: Lang = 'en'

/** setCurrentLang records lang as the language in use; only setLanguage calls it. */
export function setCurrentLang(lang: Lang): void {
  current = lang
}

/** currentLang is the language in use (what exports are asked for in). */
export function currentLang(): Lang {
  return current
}

/** timeZone is the IANA name of the user's time zone ("" when the browser does not say), for exports' dates. */
export function timeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone ?? ''
  } catch {
    return ''
  }
}

/** locale is the BCP 47 tag of the language in use, for Intl (dates, numbers). */
export function locale(): string {
  return current === 'pt' ? 'pt-BR' : 'en'
}
