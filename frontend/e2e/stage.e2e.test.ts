// End-to-end: the stage view — what a class sees on a projector. Once a run
// starts, the form folds to one line and the live iteration (its code panel
// and status) fits in the window without scrolling, at 1280×800 and at
// 1920×1080; the keys step, follow, stop and switch projector mode; the
// model's prose reads as formatted text with no literal ``` fences, for a
// provider that answers in JSON and one that answers in Markdown alike; and
// a comparison and the statistics fit 1280 px without sideways scrolling.
//
// Here the "fake" provider answers in prose with a fenced code block (as the
// CLI providers do); "quick" and "never" answer in JSON. Every wait is on a
// condition, never on a pause.

import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAILING_CODE, HOLD_SECOND, REFLECTION, WORKING_CODE } from './fakeOpenAI'
import { appReady, codeText, compareView, finalStatus, newContext, openApp, runView, screenshotOnFailure, startCompare, startRun, WAIT, type Harness } from './harness'

let h: Harness
let page: Page
/** A page of its own that a test opened (another window size): screenshotted too if that test fails. */
let extra: Page | undefined

screenshotOnFailure('stage', () => [page, extra])

beforeAll(async () => {
  h = await openApp({ viewport: { width: 1280, height: 800 }, unstructured: true })
  page = h.page
})

afterAll(async () => {
  await h?.close()
})

interface Box {
  x: number
  y: number
  width: number
  height: number
}

/** Where el is, or why it cannot be seen. */
async function box(el: Locator): Promise<Box> {
  const b = await el.boundingBox()
  if (!b) throw new Error(`${String(el)} is not displayed`)
  return b
}

/** Whether b lies wholly inside the window (half a pixel of rounding allowed). */
function inside(b: Box, vp: { width: number; height: number }): boolean {
  return b.x >= -0.5 && b.y >= -0.5 && b.x + b.width <= vp.width + 0.5 && b.y + b.height <= vp.height + 0.5
}

/** The page scrolls sideways: its content is wider than the window. */
function scrollsSideways(p: Page): Promise<boolean> {
  return p.evaluate(() => {
    const el = document.scrollingElement ?? document.documentElement
    return el.scrollWidth > el.clientWidth
  })
}

/** Any element whose own content is wider than it and that scrolls sideways (a table, a column). */
function sidewaysScrollers(p: Page, selector: string): Promise<string[]> {
  return p.evaluate(
    (sel) =>
      [...document.querySelectorAll<HTMLElement>(sel)]
        .filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
        .map((el) => `${el.className} ${el.scrollWidth}>${el.clientWidth}`),
    selector,
  )
}

/** The page's visible text outside code views: prose must show no Markdown fences. */
function proseText(p: Page): Promise<string> {
  return p.evaluate(() => {
    const clone = document.body.cloneNode(true) as HTMLElement
    clone.querySelectorAll('.cm-editor').forEach((e) => e.remove())
    return clone.innerText
  })
}

/** Types the prompt and starts the run with Ctrl+Enter; returns its id. */
async function runWithKeys(p: Page, prompt: string): Promise<string> {
  await p.getByTestId('nav-run').click()
  const expand = p.getByTestId('form-expand')
  if (await expand.isVisible()) await expand.click()
  await p.getByTestId('prompt').fill(prompt)
  return startRun(p, () => p.getByTestId('prompt').press('Control+Enter'))
}

/**
 * Starts a run in projector mode on p and checks the stage while the run is
 * live: the form folded to one line, the iteration's code panel, its status
 * chip and the run's status all inside the window, with no scrolling done
 * by the test.
 */
async function liveStage(p: Page, shot: string): Promise<string> {
  const vp = p.viewportSize()!
  const id = await runWithKeys(p, `Print a friendly greeting, ${HOLD_SECOND} at ${vp.width}`)
  const view = runView(p, id)
  // The form folded to one line: prompt summary, provider, Stop.
  await p.getByTestId('stage-bar').waitFor()
  expect(await p.getByTestId('prompt').count()).toBe(0)
  await expect.poll(() => p.getByTestId('stage-prompt').textContent()).toContain('Print a friendly greeting')
  expect(await p.getByTestId('stage-providers').textContent()).toBe('fake')
  expect(await p.getByTestId('stop').isEnabled()).toBe(true)
  // The second iteration is on stage (it stalls there, live, until stopped).
  const it2 = view.locator('[data-testid=iteration][data-iteration="2"]')
  await it2.waitFor()
  await expect.poll(() => view.getAttribute('data-status')).toBe('running')
  const chip = view.locator('[data-testid=iteration-chip][aria-pressed=true]')
  const targets: Array<[string, Locator]> = [
    ['the code panel', it2.getByTestId('code-panel')],
    ['the model output', it2.getByTestId('stream')],
    ['the execution panel', it2.getByTestId('exec')],
    ['the iteration status', chip],
    ['the run status', view.locator('.run-stats [data-testid=run-status]')],
    ['the stage bar', p.getByTestId('stage-bar')],
  ]
  // Polled: the page may still be scrolling (smoothly) to the new iteration.
  await expect
    .poll(async () => {
      const out: string[] = []
      for (const [name, el] of targets) if (!inside(await box(el), vp)) out.push(name)
      return out
    })
    .toEqual([])
  expect(await chip.getAttribute('data-phase')).toBe('generating')
  expect(await scrollsSideways(p)).toBe(false)
  await h.shot(shot, p)
  return id
}

describe('the stage view', () => {
  it('P switches projector mode, but not while typing in a text field', async () => {
    const projector = () => page.evaluate(() => document.documentElement.dataset.projector)
    expect(await projector()).toBe('off')
    await page.getByTestId('prompt').fill('')
    await page.getByTestId('prompt').press('p')
    expect(await page.getByTestId('prompt').inputValue()).toBe('p')
    expect(await projector()).toBe('off')
    await page.getByTestId('prompt').blur()
    await page.keyboard.press('p')
    await expect.poll(projector).toBe('on')
    expect(await page.getByTestId('projector').getAttribute('aria-pressed')).toBe('true')
  })

  it('1280×800, projector: the live iteration takes the window, the form one line', async () => {
    const id = await liveStage(page, 'stage-1280-live')
    const view = runView(page, id)

    // ← steps back to iteration 1 and holds it; "Follow live" appears, F returns to the newest.
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => view.getByTestId('iteration').getAttribute('data-iteration')).toBe('1')
    const follow = page.getByTestId('follow-live')
    await follow.waitFor()
    expect(inside(await box(follow), page.viewportSize()!)).toBe(true)
    // Iteration 1 as the class reads it: formatted prose, the code highlighted, the reflection.
    await expect.poll(() => view.getByTestId('stream-reflection').textContent()).toContain(REFLECTION)
    const gen = view.getByTestId('stream-generation')
    expect(await gen.locator('strong').textContent()).toBe('divides')
    expect(await gen.locator('p code').textContent()).toBe('0')
    expect(await gen.locator('li').allTextContents()).toEqual(['prints a line', 'then fails'])
    expect(await gen.locator('pre.md-code').getAttribute('data-lang')).toBe('python')
    expect(await gen.locator('pre.md-code').textContent()).toBe(FAILING_CODE)
    expect(await gen.locator('pre.md-code .tok-string').count()).toBeGreaterThan(0)
    expect(await codeText(view, '[data-testid=code]')).toBe(FAILING_CODE)
    expect(await proseText(page)).not.toContain('```')
    await h.shot('stage-1280-stepped-back')
    await page.keyboard.press('f')
    await expect.poll(() => view.getByTestId('iteration').getAttribute('data-iteration')).toBe('2')
    await follow.waitFor({ state: 'detached' })
    expect(await view.getAttribute('data-following')).toBe('true')
    // Half a fence streamed so far ("``"): never shown as backticks.
    expect(await view.getByTestId('stream-generation').textContent()).toContain('Fixing it, slowly')
    expect(await proseText(page)).not.toContain('``')

    // Scrolling up holds the view too.
    await page.mouse.move(640, 500)
    await page.mouse.wheel(0, -300)
    await follow.waitFor()
    expect(await view.getAttribute('data-following')).toBe('false')
    await follow.click()
    await expect.poll(() => view.getAttribute('data-following')).toBe('true')

    // Esc stops the run; the failing code is the last attempt, not the final code.
    await page.keyboard.press('Escape')
    expect(await finalStatus(view)).toBe('cancelled')
    await expect.poll(() => page.getByTestId('stop').isDisabled()).toBe(true)
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => view.getByTestId('iteration').getAttribute('data-iteration')).toBe('1')
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => view.getByTestId('iteration').getAttribute('data-iteration')).toBe('2')
    // The form stays folded after the run: the result is what the class looks at.
    expect(await page.getByTestId('stage-bar').isVisible()).toBe(true)
    await h.shot('stage-1280-cancelled')
  })

  it('runs to success on stage: final code, and a failed run shows its last attempt', async () => {
    const id = await runWithKeys(page, 'Print a friendly greeting for the stage replay')
    const view = runView(page, id)
    expect(await finalStatus(view)).toBe('success')
    const panel = view.getByTestId('code-panel')
    await expect.poll(() => panel.getAttribute('data-ending')).toBe('final')
    expect(await panel.locator('.card-title').textContent()).toBe('Final code')
    await expect.poll(() => codeText(view, '[data-testid=final-code]')).toBe(WORKING_CODE)
    // The run followed to its end: the result and how it ended are in the window.
    for (const el of [view.getByTestId('iteration'), view.getByTestId('run-banner')]) {
      await expect.poll(async () => inside(await box(el), page.viewportSize()!)).toBe(true)
    }
    expect(await proseText(page)).not.toContain('```')
    await h.shot('stage-1280-success')

    // "never" never gets it right: its code is the last attempt.
    await page.getByTestId('form-expand').click()
    await page.getByTestId('provider-never').locator('input[type=checkbox]').setChecked(true)
    await page.getByTestId('provider-fake').locator('input[type=checkbox]').setChecked(false)
    await page.getByTestId('max-iterations').fill('1')
    const failed = await runWithKeys(page, 'Print a friendly greeting, never right')
    const fview = runView(page, failed)
    expect(await finalStatus(fview)).toBe('limit_reached')
    const last = fview.getByTestId('code-panel')
    await expect.poll(() => last.getAttribute('data-ending')).toBe('last')
    expect(await last.locator('.card-title').textContent()).toBe('Last attempt (#1)')
    expect(await fview.getByTestId('final-code').count()).toBe(0)
    await h.shot('stage-1280-last-attempt')
    await page.getByTestId('form-expand').click()
    await page.getByTestId('provider-fake').locator('input[type=checkbox]').setChecked(true)
    await page.getByTestId('provider-never').locator('input[type=checkbox]').setChecked(false)
    await page.getByTestId('max-iterations').fill('3')
  })

  it('1920×1080, projector: the live iteration takes the window too', async () => {
    const ctx = await newContext(h.browser, { viewport: { width: 1920, height: 1080 } })
    try {
      const p = await ctx.newPage()
      extra = p
      await p.goto(h.serve.url)
      await appReady(p)
      await p.keyboard.press('p')
      await expect.poll(() => p.evaluate(() => document.documentElement.dataset.projector)).toBe('on')
      const id = await liveStage(p, 'stage-1920-live')
      await p.getByTestId('stop').click()
      expect(await finalStatus(runView(p, id))).toBe('cancelled')
    } finally {
      extra = undefined
      await ctx.close()
    }
  })

  it('1280, projector: a comparison fits the width, and every provider reads the same', async () => {
    await page.getByTestId('nav-run').click()
    const expand = page.getByTestId('form-expand')
    if (await expand.isVisible()) await expand.click()
    for (const p of ['quick', 'fake', 'never']) await page.getByTestId(`provider-${p}`).locator('input[type=checkbox]').setChecked(true)
    await page.getByTestId('max-iterations').fill('2')
    await page.getByTestId('prompt').fill('Compare a friendly greeting on stage')
    const sid = await startCompare(page, () => page.getByTestId('run').click())
    const view = compareView(page, sid)
    await view.waitFor()
    await expect.poll(() => page.getByTestId('stage-providers').locator('li').allTextContents()).toEqual(['fake', 'quick', 'never'])
    await expect.poll(() => view.locator('[data-testid=compare-column] [data-testid=stream-generation] .md').count(), { timeout: WAIT }).toBe(3)
    expect(await scrollsSideways(page)).toBe(false)
    expect(await sidewaysScrollers(page, '.compare-columns, .compare-column, .run-view')).toEqual([])
    await h.shot('stage-compare-1280-live')
    await view.getByTestId('comparison-table').waitFor({ timeout: WAIT })
    // JSON (quick, never) and Markdown (fake) answers alike: code as a highlighted block, no fences.
    for (const p of ['fake', 'quick', 'never']) {
      const col = view.locator(`[data-testid=compare-column][data-provider=${p}]`)
      await expect.poll(() => col.locator('[data-testid=stream-generation] pre.md-code').count()).toBeGreaterThan(0)
    }
    expect(await proseText(page)).not.toContain('```')
    expect(await scrollsSideways(page)).toBe(false)
    expect(await sidewaysScrollers(page, '.compare-columns, .compare-column, .table-wrap, .run-view')).toEqual([])
    // The failing column's code is its last attempt.
    const never = view.locator('[data-testid=compare-column][data-provider=never]')
    await expect.poll(() => never.getByTestId('code-panel').getAttribute('data-ending')).toBe('last')
    await h.shot('stage-compare-1280-done')
    await view.getByTestId('comparison-table').scrollIntoViewIfNeeded()
    await h.shot('stage-compare-1280-table')
    await page.getByTestId('form-expand').click()
    for (const p of ['quick', 'never']) await page.getByTestId(`provider-${p}`).locator('input[type=checkbox]').setChecked(false)
  })

  it('1280, projector: the statistics fit the width', async () => {
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-table').waitFor()
    await expect.poll(() => page.getByTestId('stats-row').count()).toBeGreaterThanOrEqual(3)
    expect(await scrollsSideways(page)).toBe(false)
    expect(await sidewaysScrollers(page, '.table-wrap')).toEqual([])
    await h.shot('stage-stats-1280')
  })

  it('1280, projector: a replay from History steps on stage', async () => {
    await page.getByTestId('nav-history').click()
    await page.getByTestId('history-search').fill('stage replay')
    await expect.poll(() => page.getByTestId('session').count()).toBe(1)
    await page.getByTestId('session').first().click()
    const view = page.getByTestId('session-detail').getByTestId('run-view')
    await view.waitFor()
    await expect.poll(() => view.getByTestId('replay-step').textContent()).toBe('Step 1 of 2')
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => view.getByTestId('replay-step').textContent()).toBe('Step 2 of 2')
    // The step brought the iteration into view, whole.
    await expect.poll(async () => inside(await box(view.getByTestId('iteration')), page.viewportSize()!)).toBe(true)
    expect(await proseText(page)).not.toContain('```')
    await h.shot('stage-history-1280')
  })

  it('logged no page errors and no failed request', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual([])
  })
})
