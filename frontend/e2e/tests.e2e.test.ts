// End-to-end: a run judged by tests, at 1280×800. The Tests panel beside
// the prompt takes YAML; the first program (it divides by zero) fails the
// test with a runtime error, the second passes: the run succeeds at
// iteration 2, each iteration shows its ✓/✗ row, the failing case is
// opened with its traceback. Every wait is on a condition.

import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { finalStatus, openApp, runView, screenshotOnFailure, startRun, type Harness } from './harness'

let h: Harness
let page: Page

screenshotOnFailure('tests', () => [page])

beforeAll(async () => {
  h = await openApp({ viewport: { width: 1280, height: 800 } })
  page = h.page
})

afterAll(async () => {
  await h?.close()
})

const TESTS = 'tests:\n  - name: greets\n    expected: "hello from loopforge"\n  - name: secret\n    expected: "hello from loopforge"\n    hidden: true\n'

describe('tests that judge the loop', () => {
  it('runs until the tests pass and shows each iteration’s verdicts', async () => {
    await page.getByTestId('prompt').fill('Greet the class')
    await page.getByTestId('tests-field').locator('summary').click()
    await page.getByTestId('tests-yaml').fill(TESTS)
    await expect.poll(() => page.getByTestId('tests-field-count').textContent()).toContain('2 tests, 1 hidden')
    const id = await startRun(page, () => page.getByTestId('run').click())
    const view = runView(page, id)
    expect(await finalStatus(view)).toBe('success')
    await expect.poll(() => view.getByTestId('iteration-chip').count()).toBe(2)

    const tests = view.getByTestId('tests')
    await expect.poll(() => tests.getByTestId('tests-row').textContent()).toBe('✓✓')
    expect(await tests.getByTestId('tests-count').textContent()).toBe('2/2 passed')
    await h.shot('tests-1280-passed')

    await view.getByTestId('iteration-chip').first().click()
    await expect.poll(() => view.getByTestId('tests').getByTestId('tests-row').textContent()).toBe('✗✗')
    const first = view.getByTestId('tests').getByTestId('test-1')
    expect(await first.getAttribute('open')).not.toBeNull()
    expect(await first.textContent()).toContain('runtime error')
    expect(await first.textContent()).toContain('ZeroDivisionError')
    const hidden = view.getByTestId('tests').getByTestId('test-2')
    expect(await hidden.getAttribute('open')).toBeNull()
    await h.shot('tests-1280-failed')
  })

  it('logged no page errors and no failed request', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual([])
  })
})
