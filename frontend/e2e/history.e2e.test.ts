// End-to-end: the History list dates its sessions in the UI's language and
// the browser's time zone (issue 24, item 15): a session of today reads
// "hoje 14:02", the next day "ontem 14:02", a week on its date and time, so
// sessions of different days never look alike. The browser's clock is moved
// (Playwright's clock), the history stays what the server stored.
// Screenshots at 1280×800 go to test-results/screenshots/history-pt-*.png.

import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { finalStatus, openApp, runView, screenshotOnFailure, startRun, type Harness } from './harness'

let h: Harness
let page: Page

screenshotOnFailure('history', () => [page])

beforeAll(async () => {
  h = await openApp({ viewport: { width: 1280, height: 800 }, timezoneId: 'America/Sao_Paulo' })
  page = h.page
  await page.getByTestId('lang-pt').click()
  await page.waitForFunction(() => document.documentElement.lang === 'pt-BR')
})

afterAll(async () => {
  await h?.close()
})

/** The History list's lines, after opening it afresh (it words the dates as it renders). */
async function historyLines(): Promise<string[]> {
  await page.getByTestId('nav-run').click()
  await page.getByTestId('nav-history').click()
  await page.getByTestId('session').first().waitFor()
  await expect.poll(async () => (await page.getByTestId('session').allTextContents()).length).toBeGreaterThanOrEqual(2)
  return page.getByTestId('session').allTextContents()
}

describe('History dates', () => {
  it('names today, yesterday, and dates older sessions, in Portuguese', async () => {
    for (const prompt of ['Imprima olá', 'Some dois números']) {
      await page.getByTestId('nav-run').click()
      // After a run the form is folded to one line: open it again.
      const expand = page.getByTestId('form-expand')
      if (await expand.isVisible()) await expand.click()
      await page.getByTestId('prompt').fill(prompt)
      const runId = await startRun(page, () => page.getByTestId('run').click())
      expect(await finalStatus(runView(page, runId))).toBe('success')
    }
    const today = await historyLines()
    for (const line of today) expect(line).toMatch(/hoje \d\d:\d\d/)
    await h.shot('history-pt-today')

    const now = Date.now()
    await page.clock.setFixedTime(now + 86_400_000)
    for (const line of await historyLines()) expect(line).toMatch(/ontem \d\d:\d\d/)
    await h.shot('history-pt-yesterday')

    await page.clock.setFixedTime(now + 8 * 86_400_000)
    const week = await historyLines()
    for (const line of week) {
      expect(line).not.toMatch(/hoje|ontem/)
      expect(line).toMatch(/\d{1,2} de [a-zç]{3}\.? \d\d:\d\d/)
    }
    await h.shot('history-pt-week')
  })
})
