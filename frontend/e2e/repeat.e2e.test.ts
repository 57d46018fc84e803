// End-to-end: "repeat to measure" (issue 25 item 6). A finished comparison
// of quick (right at once) and never (never right) is repeated twice with
// reflection on and off: eight real runs in four comparison sessions of the
// history, "run N of 8" while they go, then the results per provider ×
// reflection with quick the best; the same in Portuguese. A second repeat is
// cancelled while its first round runs: nothing more starts. Screenshots
// (en, pt) go to test-results/screenshots/repeat-*.png. Every wait is on a
// condition.

import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compareView, openApp, screenshotOnFailure, startCompare, WAIT, type Harness } from './harness'

let h: Harness
let page: Page
let view: Locator

screenshotOnFailure('repeat', () => [page])

const PROMPT = 'Greet the class to measure it'

beforeAll(async () => {
  h = await openApp({ viewport: { width: 1280, height: 900 } })
  page = h.page
})

afterAll(async () => {
  await h?.close()
})

/** Starts a repeat from the open form and returns the server's first status. */
async function startRepeat(): Promise<{ id: string; runs_total: number; repeat: number }> {
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/repeats', { timeout: WAIT })
  await view.getByTestId('repeat-start').click()
  const r = await answered
  if (!r.ok()) throw new Error(`POST /api/repeats answered ${r.status()}: ${await r.text()}`)
  return (await r.json()) as { id: string; runs_total: number; repeat: number }
}

/** How many sessions of the history hold PROMPT (the first comparison and every round). */
async function sessionsOfPrompt(): Promise<number> {
  return page.evaluate(async (q) => {
    const r = await fetch(`/api/sessions?q=${encodeURIComponent(q)}&limit=100`)
    return ((await r.json()) as unknown[]).length
  }, PROMPT)
}

describe('repeat to measure', () => {
  it('runs a comparison of quick and never', async () => {
    for (const p of ['quick', 'never']) await page.getByTestId(`provider-${p}`).locator('input[type=checkbox]').setChecked(true)
    await page.getByTestId(`provider-fake`).locator('input[type=checkbox]').setChecked(false)
    await page.getByTestId('max-iterations').fill('2')
    await page.getByTestId('prompt').fill(PROMPT)
    const sid = await startCompare(page, () => page.getByTestId('run').click())
    view = compareView(page, sid)
    await view.getByTestId('comparison-table').waitFor({ timeout: WAIT })
  })

  it('repeats it twice with reflection on and off, live, then shows who is reliable', async () => {
    await view.getByTestId('repeat-open').click()
    const form = view.getByTestId('repeat-form')
    await form.waitFor()
    for (const p of ['quick', 'never']) expect(await form.getByTestId(`repeat-provider-${p}`).locator('input').isChecked()).toBe(true)
    expect(await form.getByTestId('repeat-provider-fake').locator('input').isChecked()).toBe(false)
    await form.getByTestId('repeat-n').fill('2')
    expect(await form.getByTestId('repeat-reflect-ab').isChecked()).toBe(true)
    const st = await startRepeat()
    expect(st.runs_total).toBe(8)

    const progress = view.getByTestId('repeat-progress')
    // Live: a count of runs ended between none and all, before the end.
    await expect.poll(async () => Number(await progress.getAttribute('data-done'))).toBeGreaterThan(0)
    const mid = await progress.getAttribute('data-state')
    if (mid === 'running') {
      expect(await view.getByTestId('repeat-run-of').textContent()).toMatch(/^run [1-8] of 8$/)
      await view.getByTestId('repeat-panel').scrollIntoViewIfNeeded()
      await h.shot('repeat-running')
    }
    await progress.locator('xpath=self::*[@data-state="done"]').waitFor({ timeout: WAIT })
    expect(await progress.getAttribute('data-done')).toBe('8')

    const rows = view.getByTestId('repeat-row')
    await expect.poll(() => rows.count()).toBe(4)
    const line = async (i: number) => {
      const r = rows.nth(i)
      return [await r.getAttribute('data-provider'), await r.getAttribute('data-reflect'), await r.locator('[data-col=pass_all]').textContent(), await r.locator('[data-col=pass_at_1]').textContent()]
    }
    expect(await line(0)).toEqual(['quick', 'on', 'yes', '2/2 (100%)'])
    expect(await line(1)).toEqual(['never', 'on', 'no', '0/2 (0%)'])
    expect(await line(2)).toEqual(['quick', 'off', 'yes', '2/2 (100%)'])
    expect(await line(3)).toEqual(['never', 'off', 'no', '0/2 (0%)'])
    expect(await rows.nth(0).locator('[data-col=iterations_to_green]').textContent()).toBe('1.0 ± 0.0')
    expect(await rows.nth(1).locator('[data-col=iterations_to_green]').textContent()).toBe('—')
    // The best: one of quick's rows (equal on pass@1 and iterations, the
    // faster wall time decides, which the machine's load sets), its pass@1
    // highlighted, never's not.
    expect(await view.getByTestId('repeat-best').count()).toBe(1)
    expect(await view.locator('[data-testid=repeat-row][data-best=true]').getAttribute('data-provider')).toBe('quick')
    expect(await rows.nth(0).locator('[data-col=pass_at_1]').getAttribute('class')).toContain('best')
    expect(await rows.nth(1).locator('[data-col=pass_at_1]').getAttribute('class')).not.toContain('best')
    expect(await view.getByTestId('repeat-panel').textContent()).toContain('The 4 rounds are comparisons in the history.')
    await view.getByTestId('repeat-table').scrollIntoViewIfNeeded()
    await h.shot('repeat-results-en')

    // The rounds are in the history: the first comparison and four more.
    expect(await sessionsOfPrompt()).toBe(5)

    await page.getByTestId('lang-pt').click()
    await page.waitForFunction(() => document.documentElement.lang === 'pt-BR')
    await expect.poll(() => view.getByTestId('repeat-state').textContent()).toBe('Concluída')
    expect(await rows.nth(1).locator('[data-col=pass_all]').textContent()).toBe('não')
    expect(await view.getByTestId('repeat-panel').textContent()).toContain('As 4 rodadas são comparações no histórico.')
    await view.getByTestId('repeat-table').scrollIntoViewIfNeeded()
    await h.shot('repeat-results-pt')
    await page.getByTestId('lang-en').click()
    await page.waitForFunction(() => document.documentElement.lang === 'en')
  })

  it('cancel stops the round that runs and starts no other', async () => {
    await view.getByTestId('repeat-close').click()
    await view.getByTestId('repeat-open').click()
    await view.getByTestId('repeat-n').fill('5')
    await view.getByTestId('repeat-reflect-on').check()
    const before = await sessionsOfPrompt()
    const st = await startRepeat()
    expect(st.repeat).toBe(5)
    expect(st.runs_total).toBe(10)
    await view.getByTestId('repeat-cancel').click()
    const progress = view.getByTestId('repeat-progress')
    await progress.locator('xpath=self::*[@data-state="cancelled"]').waitFor({ timeout: WAIT })
    expect(await view.getByTestId('repeat-state').textContent()).toBe('Cancelled')
    expect(Number(await progress.getAttribute('data-done'))).toBeLessThan(10)
    const started = (await sessionsOfPrompt()) - before
    expect(started).toBeGreaterThanOrEqual(1)
    expect(started).toBeLessThan(5)
    // Its runs ended: none of the history's is still running.
    const running = await page.evaluate(async () => {
      const r = await fetch('/api/sessions?limit=100')
      const list = (await r.json()) as Array<{ runs?: Array<{ status: string }> }>
      return list.flatMap((s) => s.runs ?? []).filter((x) => x.status === 'running').length
    })
    expect(running).toBe(0)
    expect(h.pageErrors).toEqual([])
  })
})
