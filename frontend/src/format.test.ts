import { afterEach, describe, expect, it } from 'vitest'
import { bytes, clock, count, duration, fixed, seconds, when } from './format'
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
