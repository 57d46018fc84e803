import { afterEach, describe, expect, it } from 'vitest'
import { bytes, clock, count, duration, fixed, seconds, stamp, when } from './format'
import { setLanguage } from './strings'

describe('format', () => {
  afterEach(() => setLanguage('en'))
  it('clock', () => {
    expect(clock(0)).toBe('0:00')
    expect(clock(65_432)).toBe('1:05')
    expect(clock(3_725_000)).toBe('1:02:05')
  })
  it('duration', () => {
    expect(duration(undefined)).toBe('—')
    expect(duration(850)).toBe('850 ms')
    expect(duration(1234)).toBe('1.2 s')
    expect(duration(125_000)).toBe('2:05')
  })
  it('count', () => {
    expect(count(950)).toBe('950')
    expect(count(1234)).toBe('1.2k')
    expect(count(34_567)).toBe('35k')
  })
  it('when', () => {
    const now = new Date('2026-11-21T15:00:00')
    expect(when(undefined, now)).toBe('')
    expect(when('garbage', now)).toBe('')
    expect(when('2026-11-21T09:05:00', now)).toMatch(/09:05|9:05/)
    expect(when('2026-11-20T09:05:00', now)).toMatch(/20/)
    // The UI's language, not the browser's: months and clocks follow it.
    expect(when('2026-02-20T21:05:00', now, 'pt-BR')).toMatch(/^20 de fev\.? 21:05$/)
    expect(when('2026-02-20T21:05:00', now, 'en')).toMatch(/^Feb 20,? 0?9:05\s?PM$/)
  })
  it('stamp: today, yesterday, else the date, in the given language and zone', () => {
    // 03:10 on 21 November in São Paulo (UTC-3): 06:10 UTC.
    const now = new Date('2026-11-21T06:10:00Z')
    const sp = 'America/Sao_Paulo'
    expect(stamp(undefined, now, 'en', sp)).toBe('')
    expect(stamp('garbage', now, 'en', sp)).toBe('')
    expect(stamp('2026-11-21T06:26:00Z', now, 'pt-BR', sp)).toBe('hoje 03:26')
    expect(stamp('2026-11-21T06:26:00Z', now, 'en', sp)).toBe('today 03:26 AM')
    expect(stamp('2026-11-20T17:02:00Z', now, 'pt-BR', sp)).toBe('ontem 14:02')
    expect(stamp('2026-11-20T17:02:00Z', now, 'en', sp)).toBe('yesterday 02:02 PM')
    // The zone decides the day: 02:00 UTC is still the 20th in São Paulo.
    expect(stamp('2026-11-21T02:00:00Z', now, 'pt-BR', sp)).toBe('ontem 23:00')
    expect(stamp('2026-11-21T02:00:00Z', now, 'pt-BR', 'UTC')).toBe('hoje 02:00')
    // A week ago, two sessions three minutes apart are told apart by their date and time.
    expect(stamp('2026-11-14T06:26:00Z', now, 'pt-BR', sp)).toMatch(/^14 de nov\.? 03:26$/)
    expect(stamp('2026-11-14T06:29:00Z', now, 'en', sp)).toMatch(/^Nov 14 03:29 AM$/)
    expect(stamp('2025-11-14T06:29:00Z', now, 'pt-BR', sp)).toMatch(/^14 de nov\.? de 2025 03:29$/)
  })
  it('bytes', () => {
    expect(bytes(512)).toBe('512 B')
    expect(bytes(64 * 1024)).toBe('64 KiB')
    expect(bytes(8 * 1024 * 1024)).toBe('8 MiB')
    expect(bytes(1 << 30)).toBe('1 GiB')
    expect(bytes(1.5 * (1 << 30))).toBe('1.5 GiB')
    expect(bytes(-1)).toBe('—')
  })
  it('writes decimals the way the UI language does', () => {
    expect(fixed(1234.5, 2, 'pt-BR')).toBe('1234,50')
    setLanguage('pt')
    expect(duration(1234)).toBe('1,2 s')
    expect(count(1234)).toBe('1,2k')
    expect(bytes(1.5 * (1 << 30))).toBe('1,5 GiB')
    setLanguage('en')
    expect(duration(1234)).toBe('1.2 s')
  })
  it('seconds', () => {
    expect(seconds(45)).toBe('45 s')
    expect(seconds(300)).toBe('5 min')
    expect(seconds(90)).toBe('1 min 30 s')
    expect(seconds(7200)).toBe('2 h')
  })
})
