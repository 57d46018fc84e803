// End-to-end: the class's limits reach a student's open page at once. The
// instructor (its own browser context) narrows the providers to one and the
// iterations to 2 while a student's form is open with another provider
// ticked and 3 iterations; without a reload, the student's form loses the
// provider, its iteration field drops to 2, and Run starts a run the server
// accepts (before, it was refused with 403 until a reload). The student
// never sees the instructor's profiles that are not set up.
//
// Every wait is on a condition (an element, an attribute, a server answer),
// never on a pause.

import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeOpenAI, type FakeOpenAI } from './fakeOpenAI'
import { CHROMIUM, CHROMIUM_ARGS, finalStatus, newContext, runView, screenshotOnFailure, startRun, WAIT } from './harness'
import { startServe, type Serve } from './serve'

let fake: FakeOpenAI
let serve: Serve
let browser: Browser
let teacher: Page
let pupil: Page
const pageErrors: string[] = []

screenshotOnFailure('classlimits', () => [teacher, pupil])

function watch(p: Page) {
  p.on('pageerror', (e) => pageErrors.push(String(e)))
  p.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text())
  })
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ chunkDelayMs: 5, chunkSize: 20 })
  serve = await startServe(fake.url, { args: ['class', '--name', 'Turma Limites', '--listen', '127.0.0.1:0'] })
  const m = await serve.waitOutput(/students:\s+(http:\/\/\S+\/join)\s+code:\s+([A-Z0-9-]+)/)
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  teacher = await (await newContext(browser)).newPage()
  pupil = await (await newContext(browser)).newPage()
  watch(teacher)
  watch(pupil)
  await teacher.goto(serve.url)
  await teacher.getByTestId('class-tab').waitFor()
  await pupil.goto(m[1])
  await pupil.getByTestId('join-code-input').fill(m[2])
  await pupil.getByTestId('join-name').fill('Ana')
  await pupil.getByTestId('join-submit').click()
  await pupil.getByTestId('student-badge').waitFor()
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  await fake?.close()
})

describe('a class whose limits change while a student’s page is open', () => {
  it('the student sees the class’s ready providers only, none of the instructor’s notes', async () => {
    // needs-key lacks its key on the instructor's machine: the instructor's business.
    await pupil.getByTestId('provider-fake').waitFor()
    await pupil.getByTestId('provider-quick').waitFor()
    expect(await pupil.getByTestId('provider-needs-key').count()).toBe(0)
    expect(await pupil.getByTestId('providers-not-ready').count()).toBe(0)
  })

  it('narrowed providers and iterations reach the open form at once, and its Run is accepted', async () => {
    // The student's form as it was: fake ticked (the configured default), 3 iterations.
    const fakeBox = pupil.getByTestId('provider-fake').locator('input[type=checkbox]')
    if (!(await fakeBox.isChecked())) await fakeBox.check()
    await expect.poll(() => pupil.getByTestId('max-iterations').inputValue(), { timeout: WAIT }).toBe('3')

    await teacher.getByTestId('class-limits').click()
    await teacher.getByTestId('limit-providers').locator('input[data-value=quick]').check()
    await teacher.getByTestId('limit-max-iterations').fill('2')
    const saved = teacher.waitForResponse((r) => r.url().endsWith('/api/class/limits') && r.request().method() === 'PUT', { timeout: WAIT })
    await teacher.getByTestId('limits-save').click()
    expect((await saved).ok()).toBe(true)

    // No reload: the removed provider goes, the field drops to the cap.
    await pupil.getByTestId('provider-fake').waitFor({ state: 'detached', timeout: WAIT })
    await expect.poll(() => pupil.getByTestId('max-iterations').inputValue(), { timeout: WAIT }).toBe('2')
    expect(await pupil.getByTestId('max-iterations').getAttribute('max')).toBe('2')
    expect(await pupil.getByTestId('provider-quick').locator('input[type=checkbox]').isChecked()).toBe(true)

    await pupil.getByTestId('prompt').fill('Print hello')
    const asked = pupil.waitForRequest((r) => r.url().endsWith('/api/runs') && r.method() === 'POST', { timeout: WAIT })
    const runId = await startRun(pupil, () => pupil.getByTestId('run').click())
    expect((await asked).postDataJSON()).toMatchObject({ provider: 'quick', max_iterations: 2 })
    expect(await finalStatus(runView(pupil, runId))).toBe('success')
  })

  it('the page logged no errors', () => {
    expect(pageErrors).toEqual([])
  })
})
