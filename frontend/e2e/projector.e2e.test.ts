// End-to-end: projector type in a 1280×800 window, the size of many classroom
// projectors. While a program prints, the current code and the program's
// newest output (RESULT=42, after 40 other lines) are both in the window
// without any scrolling by the test; the header stays one line, in English
// and in Portuguese; and a comparison of three providers in Portuguese does
// not overflow sideways. Screenshots go to test-results/screenshots/
// projector-*.png. Every wait is on a condition, never on a pause.

import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LONG_PRINT } from './fakeOpenAI'
import { compareView, finalStatus, openApp, runView, screenshotOnFailure, startCompare, startRun, WAIT, type Harness } from './harness'

const VP = { width: 1280, height: 800 }
let h: Harness
let page: Page

screenshotOnFailure('projector', () => [page])

beforeAll(async () => {
  h = await openApp({ viewport: VP })
  page = h.page
  await page.getByTestId('projector').click()
  await page.waitForFunction(() => document.documentElement.dataset.projector === 'on')
})

afterAll(async () => {
  await h?.close()
})

async function box(el: Locator) {
  const b = await el.boundingBox()
  if (!b) throw new Error(`${String(el)} is not displayed`)
  return b
}

/** The header's items lie on one line: every one overlaps every other vertically, and nothing is cut off sideways. */
async function headerLines(): Promise<{ oneLine: boolean; height: number; overflow: boolean; items: string[] }> {
  return page.evaluate(() => {
    const bar = document.querySelector<HTMLElement>('.topbar')!
    const items = [...bar.children].map((c) => c.getBoundingClientRect()).filter((r) => r.height > 0)
    const oneLine = items.every((a) => items.every((b) => a.top < b.bottom && b.top < a.bottom))
    // The workdir row inside the header: its own items too (it wrapped "Browse…" under the path before).
    const wd = [...document.querySelectorAll('.topbar .workdir > *')].map((c) => c.getBoundingClientRect()).filter((r) => r.height > 0)
    const wdOneLine = wd.every((a) => wd.every((b) => a.top < b.bottom && b.top < a.bottom))
    return {
      oneLine: oneLine && wdOneLine,
      height: bar.getBoundingClientRect().height,
      overflow: bar.scrollWidth > bar.clientWidth + 1,
      items: [...bar.children].map((c) => `${c.className} ${Math.round(c.getBoundingClientRect().top)}+${Math.round(c.getBoundingClientRect().height)}`),
    }
  })
}

/** The page or any of the given elements scrolls sideways. */
function sideways(selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = []
    const root = document.scrollingElement ?? document.documentElement
    if (root.scrollWidth > root.clientWidth) out.push(`page ${root.scrollWidth}>${root.clientWidth}`)
    for (const el of document.querySelectorAll<HTMLElement>(sel)) {
      if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') out.push(`${el.className} ${el.scrollWidth}>${el.clientWidth}`)
    }
    return out
  }, selector)
}

/**
 * Runs the printing program on stage and checks, while it runs and with no
 * scrolling by the test, that the code and the newest output are in view.
 */
async function codeAndOutputInView(prompt: string, shot: string) {
  await page.getByTestId('nav-run').click()
  const expand = page.getByTestId('form-expand')
  if (await expand.isVisible()) await expand.click()
  await page.getByTestId('prompt').fill(prompt)
  await page.getByTestId('timeout').fill('600') // the test, not the time limit, ends the program
  const id = await startRun(page, () => page.getByTestId('prompt').press('Control+Enter'))
  const view = runView(page, id)
  const exec = view.getByTestId('exec')
  const stdout = exec.getByTestId('stdout')
  await expect.poll(() => stdout.textContent(), { timeout: WAIT }).toContain('RESULT=42')
  expect(await view.getAttribute('data-status')).toBe('running')
  expect(await exec.getByTestId('exec-status').count()).toBe(0)
  const code = view.getByTestId('code-panel')
  const stageBar = page.getByTestId('stage-bar')
  // Polled: the view may still be scrolling (smoothly) to the iteration.
  await expect
    .poll(async () => {
      const c = await box(code)
      const o = await box(stdout)
      const top = (await box(stageBar)).y + (await box(stageBar)).height
      const bad: string[] = []
      if (c.y < top - 0.5 || c.y + c.height > VP.height + 0.5) bad.push(`code ${c.y}..${c.y + c.height}`)
      if (o.y < top - 0.5 || o.y + o.height > VP.height + 0.5) bad.push(`output ${o.y}..${o.y + o.height}`)
      if (o.height < 40) bad.push(`output only ${o.height}px tall`)
      return bad
    })
    .toEqual([])
  // The output box shows its end: RESULT=42 is its last line, and the box is scrolled to it.
  await expect.poll(() => stdout.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2)
  const last = await stdout.evaluate((el) => {
    const r = document.createRange()
    const text = el.firstChild!
    const at = (text.textContent ?? '').indexOf('RESULT=42')
    r.setStart(text, at)
    r.setEnd(text, at + 'RESULT=42'.length)
    return r.getBoundingClientRect().bottom
  })
  expect(last).toBeLessThanOrEqual(VP.height)
  // The code panel shows a good part of the program (the rest scrolls inside
  // it), and the output box several lines, the last of them RESULT=42.
  const scroller = code.locator('[data-testid=code] .cm-scroller')
  const sb = await box(scroller)
  const shown = await code
    .locator('[data-testid=code] .cm-line')
    .evaluateAll((els, bottom) => els.filter((e) => e.getBoundingClientRect().bottom <= bottom + 0.5).length, sb.y + sb.height)
  expect(shown, 'code lines in view').toBeGreaterThanOrEqual(6)
  const outLines = await stdout.evaluate((el) => el.clientHeight / parseFloat(getComputedStyle(el).lineHeight))
  expect(outLines, 'output lines in view').toBeGreaterThanOrEqual(3)
  expect(await sideways('.run-view, .iter-grid')).toEqual([])
  await h.shot(shot)
  await page.getByTestId('stop').click()
  expect(await finalStatus(view)).toBe('cancelled')
}

describe('projector type at 1280×800', () => {
  it('shows the current code and the newest output of a running program', async () => {
    const hd = await headerLines()
    expect(hd.oneLine, hd.items.join(', ')).toBe(true)
    expect(hd.overflow).toBe(false)
    await codeAndOutputInView(`Print squares on the projector ${LONG_PRINT}`, 'projector-1280-live-output')
  })

  it('in Portuguese: the header is one line, and the code and output are in view', async () => {
    await page.getByTestId('lang-pt').click()
    await expect.poll(() => page.getByTestId('nav-history').textContent()).toBe('Histórico')
    const hd = await headerLines()
    expect(hd.oneLine, hd.items.join(', ')).toBe(true)
    expect(hd.overflow).toBe(false)
    // One line of header items: no taller than its tallest item and its padding.
    expect(hd.height).toBeLessThan(64)
    await codeAndOutputInView(`Quadrados no projetor ${LONG_PRINT}`, 'projector-1280-live-output-pt')
    const after = await headerLines()
    expect(after.oneLine, after.items.join(', ')).toBe(true)
    await h.shot('projector-1280-header-pt')
  })

  it('in Portuguese: a comparison of three providers does not overflow sideways', async () => {
    await page.getByTestId('nav-run').click()
    const expand = page.getByTestId('form-expand')
    if (await expand.isVisible()) await expand.click()
    for (const p of ['fake', 'quick', 'never']) await page.getByTestId(`provider-${p}`).locator('input[type=checkbox]').setChecked(true)
    await page.getByTestId('max-iterations').fill('2')
    await page.getByTestId('prompt').fill('Compare uma saudação no projetor')
    const sid = await startCompare(page, () => page.getByTestId('run').click())
    const view = compareView(page, sid)
    await expect.poll(() => view.getByTestId('compare-column').count()).toBe(3)
    await expect.poll(() => view.locator('[data-testid=compare-column] [data-testid=stream-generation]').count(), { timeout: WAIT }).toBe(3)
    expect(await sideways('.compare-columns, .compare-column, .run-view, .run-stats, .timeline')).toEqual([])
    await h.shot('projector-1280-compare-pt-live')
    await view.getByTestId('comparison-table').waitFor({ timeout: WAIT })
    const cols = await view.getByTestId('compare-column').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right))
    for (const r of cols) expect(r).toBeLessThanOrEqual(VP.width)
    expect(await sideways('.compare-columns, .compare-column, .run-view, .run-stats, .timeline, .table-wrap')).toEqual([])
    const hd = await headerLines()
    expect(hd.oneLine, hd.items.join(', ')).toBe(true)
    await h.shot('projector-1280-compare-pt-done')
  })

  it('logged no page errors and no failed request', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual([])
  })
})
