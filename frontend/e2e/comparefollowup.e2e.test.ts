// End-to-end: a follow-up typed on a three-provider comparison. History shows
// which providers it goes on with ("Continue with: fake quick never", all
// ticked, each in its own thread); Continue starts every ticked one in the
// same comparison session, each sent its own earlier answer and never another
// provider's; unticking all but one continues that one alone, and unticking
// all of them leaves nothing to start. Every wait is on a condition.

import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compareView, finalStatus, openApp, runView, screenshotOnFailure, startCompare, startRun, WAIT, type Harness } from './harness'

let h: Harness
let page: Page
let sid = ''

screenshotOnFailure('comparefollowup', () => [page])

const PROVIDERS = ['fake', 'quick', 'never']
/** What each provider explained in its first answer (fakeOpenAI): its own thread holds it, no other's does. */
const OWN_WORDS: Record<string, string> = {
  'fake-model': 'A small program that prints and then divides.',
  'quick-model': 'Right the first time.',
  'never-model': 'Still dividing.',
}
const FOLLOW_UP = 'Now print the greeting twice'

beforeAll(async () => {
  h = await openApp({ viewport: { width: 1280, height: 800 } })
  page = h.page
})

afterAll(async () => {
  await h?.close()
})

/** The text of every message the fake model was sent for the follow-up, per model. */
function followUpThreads(): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const r of h.fake.requests) {
    const msgs = (r.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    if (!msgs.some((m) => m.includes(FOLLOW_UP)) || msgs.some((m) => m.includes('strict code reviewer'))) continue
    ;(out[r.model ?? ''] ??= []).push(msgs.join('\n'))
  }
  return out
}

async function openSession() {
  await page.getByTestId('nav-history').click()
  await page.getByTestId('history-search').fill('Compare a greeting to follow up')
  await expect.poll(() => page.getByTestId('session').count()).toBe(1)
  await page.getByTestId('session').first().click()
  await page.getByTestId('session-detail').waitFor()
}

describe('a follow-up on a comparison', () => {
  it('runs a comparison of three providers', async () => {
    for (const p of PROVIDERS) await page.getByTestId(`provider-${p}`).locator('input[type=checkbox]').setChecked(true)
    await page.getByTestId('max-iterations').fill('2')
    await page.getByTestId('prompt').fill('Compare a greeting to follow up')
    sid = await startCompare(page, () => page.getByTestId('run').click())
    await compareView(page, sid).getByTestId('comparison-table').waitFor({ timeout: WAIT })
  })

  it('says which providers it continues, all ticked, and continues every one in its own thread', async () => {
    await openSession()
    const withBox = page.getByTestId('continue-with')
    await withBox.waitFor()
    expect(await withBox.locator('legend').textContent()).toBe('Continue with')
    const boxes = withBox.locator('input[type=checkbox]')
    await expect.poll(() => boxes.count()).toBe(3)
    expect(await withBox.locator('label').allTextContents()).toEqual(PROVIDERS)
    for (const p of PROVIDERS) expect(await page.getByTestId(`continue-with-${p}`).locator('input').isChecked()).toBe(true)
    expect(await page.getByTestId('continue-with-note').textContent()).toBe('each of the 3 goes on with its own thread')
    await page.getByTestId('follow-up').fill(FOLLOW_UP)
    expect(await page.getByTestId('continue').textContent()).toBe('Continue all 3')
    await page.getByTestId('follow-up').scrollIntoViewIfNeeded()
    await h.shot('compare-followup-choice')

    const again = await startCompare(page, () => page.getByTestId('continue').click())
    expect(again).toBe(sid) // the same comparison session, not a new one
    const view = compareView(page, sid)
    await view.waitFor()
    await expect.poll(() => view.getByTestId('compare-column').evaluateAll((els) => els.map((e) => e.getAttribute('data-provider')))).toEqual(PROVIDERS)
    for (const p of PROVIDERS) {
      const col = view.locator(`[data-testid=compare-column][data-provider=${p}]`)
      const id = (await col.getAttribute('data-run-id')) ?? ''
      expect(['success', 'limit_reached']).toContain(await finalStatus(runView(view, id)))
    }
    await view.getByTestId('comparison-table').waitFor()
    await h.shot('compare-followup-continued')

    // Each model was sent its own first answer with the follow-up, and no other's.
    const threads = followUpThreads()
    expect(Object.keys(threads).sort()).toEqual(Object.keys(OWN_WORDS).sort())
    for (const [model, sent] of Object.entries(threads)) {
      const first = sent[0]
      for (const [other, words] of Object.entries(OWN_WORDS)) expect(first.includes(words), `${model}'s follow-up holds ${other}'s answer`).toBe(other === model)
    }
    // History holds the six runs of one session.
    await openSession()
    await expect.poll(() => page.locator('.run-tabs [role=tab]').count()).toBe(6)
  })

  it('continues one ticked provider alone, and none when none is ticked', async () => {
    await openSession()
    for (const p of ['fake', 'never']) await page.getByTestId(`continue-with-${p}`).locator('input').setChecked(false)
    expect(await page.getByTestId('continue-with-note').textContent()).toBe('this provider goes on with its own thread')
    await page.getByTestId('follow-up').fill(`${FOLLOW_UP}, quick only`)
    expect(await page.getByTestId('continue').textContent()).toBe('Continue')
    const before = h.fake.requests.length
    const id = await startRun(page, () => page.getByTestId('continue').click())
    const view = runView(page, id)
    expect(await finalStatus(view)).toBe('success')
    const sent = h.fake.requests.slice(before).filter((r) => (r.messages ?? []).some((m) => typeof m.content === 'string' && m.content.includes('quick only')))
    expect(sent.map((r) => r.model)).toEqual(['quick-model'])

    // Opened again, the session ticks every provider again; none ticked, nothing can start.
    await openSession()
    for (const p of PROVIDERS) await page.getByTestId(`continue-with-${p}`).locator('input').setChecked(false)
    await page.getByTestId('follow-up').fill('nobody answers this')
    expect(await page.getByTestId('continue-with-note').textContent()).toBe('tick at least one provider')
    expect(await page.getByTestId('continue').isDisabled()).toBe(true)
  })

  it('says it in Portuguese too', async () => {
    await page.getByTestId('lang-pt').click()
    await openSession()
    const withBox = page.getByTestId('continue-with')
    expect(await withBox.locator('legend').textContent()).toBe('Continuar com')
    expect(await page.getByTestId('continue-with-note').textContent()).toBe('cada um dos 3 segue a sua própria conversa')
    await page.getByTestId('follow-up').fill('mais uma vez')
    expect(await page.getByTestId('continue').textContent()).toBe('Continuar os 3')
    await page.getByTestId('lang-en').click()
  })

  it('logged no page errors and no failed request', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual([])
  })
})
