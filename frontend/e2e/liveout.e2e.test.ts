// End-to-end: a program's output as it prints, at 1280×800. The run form's
// Input (stdin) reaches the program; the line it prints shows in the
// iteration's execution panel while the program still runs (it then sleeps
// for an hour, so the line cannot come from its end), stays after Stop, and
// is there again when the run is reopened from History. Every wait is on a
// condition, never on a pause.

import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SLOW_PRINT } from './fakeOpenAI'
import { finalStatus, openApp, runView, screenshotOnFailure, startRun, type Harness } from './harness'

let h: Harness
let page: Page

screenshotOnFailure('liveout', () => [page])

beforeAll(async () => {
  h = await openApp({ viewport: { width: 1280, height: 800 } })
  page = h.page
})

afterAll(async () => {
  await h?.close()
})

const LINE = 'counting sheep for Ada'

describe('program output live', () => {
  it('shows the printed line while the program runs, and keeps it after Stop', async () => {
    await page.getByTestId('prompt').fill(`Count sheep slowly ${SLOW_PRINT}`)
    // A long time limit: the test, not the timeout, ends the program.
    await page.getByTestId('timeout').fill('600')
    await page.getByTestId('stdin').fill('Ada\nBob\n')
    const id = await startRun(page, () => page.getByTestId('run').click())
    const view = runView(page, id)
    const exec = view.getByTestId('exec')

    // Printed, and still running: no outcome yet, the run is live.
    await expect.poll(() => exec.getByTestId('stdout').textContent()).toBe(`${LINE}\n`)
    expect(await exec.getByTestId('exec-status').count()).toBe(0)
    expect(await exec.getByTestId('exec-live').isVisible()).toBe(true)
    expect(await view.getAttribute('data-status')).toBe('running')
    expect(await exec.textContent()).not.toContain('Not run yet.')
    await exec.getByTestId('exec-stdin').click() // opens the input shown with the execution
    expect(await exec.getByTestId('exec-stdin').locator('pre').textContent()).toBe('Ada\nBob\n')
    await h.shot('liveout-1280-running')

    await page.getByTestId('stop').click()
    expect(await finalStatus(view)).toBe('cancelled')
    await expect.poll(() => exec.getByTestId('exec-status').getAttribute('data-status')).toBe('killed')
    expect(await exec.getByTestId('exec-status').textContent()).toBe('stopped')
    expect(await exec.getByTestId('stdout').textContent()).toBe(`${LINE}\n`)
    expect(await exec.textContent()).not.toContain('Not run yet.')
    await exec.getByTestId('stdout').scrollIntoViewIfNeeded()
    await h.shot('liveout-1280-stopped')
  })

  it('shows it again when the run is reopened from History', async () => {
    await page.getByTestId('nav-history').click()
    await page.getByTestId('history-search').fill('Count sheep slowly')
    await expect.poll(() => page.getByTestId('session').count()).toBe(1)
    await page.getByTestId('session').first().click()
    const view = page.getByTestId('session-detail').getByTestId('run-view')
    await view.waitFor()
    expect(await view.getAttribute('data-status')).toBe('cancelled')
    const exec = view.getByTestId('exec')
    await expect.poll(() => exec.getByTestId('stdout').textContent()).toBe(`${LINE}\n`)
    expect(await exec.getByTestId('exec-status').getAttribute('data-status')).toBe('killed')
    expect(await exec.getByTestId('exec-status').textContent()).toBe('stopped')
    await exec.getByTestId('exec-stdin').click()
    expect(await exec.getByTestId('exec-stdin').locator('pre').textContent()).toBe('Ada\nBob\n')
    await exec.getByTestId('stdout').scrollIntoViewIfNeeded()
    await h.shot('liveout-1280-history')
  })

  it('logged no page errors and no failed request', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual([])
  })
})
