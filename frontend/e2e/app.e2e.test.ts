// End-to-end: the real loopforge binary (`serve`) against a fake
// OpenAI-compatible provider, driven in Debian's headless Chromium.
// Nothing is built here: LOOPFORGE_BIN names the binary (default
// ../build/bin/loopforge-e2e), built with the current frontend embedded.
//
// The tests share one page and run in order. A step that starts a run takes
// the run's id from the server's answer and looks only at that run's view:
// until the page has the answer it still shows the previous run, banner and
// all. Every wait is on a condition, never on a pause.

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAILING_CODE, REFLECTION, WORKING_CODE } from './fakeOpenAI'
import {
  appReady,
  codeText,
  compareView,
  finalStatus,
  newContext,
  openApp,
  runView,
  screenshotOnFailure,
  setTheme,
  startCompare,
  startRun,
  WAIT,
  type Harness,
} from './harness'

let h: Harness
let page: Page
/** A page of its own that a test opened (a narrow window): screenshotted too if that test fails. */
let extra: Page | undefined
/** The comparison of three providers, for the export test that follows it. */
let comparisonId = ''

screenshotOnFailure('app', () => [page, extra])

/** Searches the history and waits until the list shows exactly one matching session. */
async function searchHistory(text: string) {
  await page.getByTestId('history-search').fill(text)
  await expect
    .poll(async () => {
      const titles = await page.getByTestId('session').locator('.session-title').allTextContents()
      return titles.length === 1 && titles[0].toLowerCase().includes(text.toLowerCase())
    })
    .toBe(true)
}

/** Opens the Run panel with its form unfolded (a run folds it to one line). */
async function openForm(p: Page = page) {
  await p.getByTestId('nav-run').click()
  const expand = p.getByTestId('form-expand')
  if (await expand.isVisible()) await expand.click()
  await p.getByTestId('prompt').waitFor()
}

/** Opens the Run panel, types the prompt and presses Run (or Compare). */
async function submitPrompt(prompt: string, p: Page = page) {
  await openForm(p)
  await p.getByTestId('prompt').fill(prompt)
  await p.getByTestId('run').click()
}

const tick = async (name: string, on: boolean) => {
  await openForm()
  await page.getByTestId(`provider-${name}`).locator('input[type=checkbox]').setChecked(on)
}

beforeAll(async () => {
  h = await openApp()
  page = h.page
})

afterAll(async () => {
  await h?.close()
})

describe('loopforge in a browser', () => {
  it('opens on the run panel with presets and the ready provider', async () => {
    // The tokenised URL set the cookie and redirected to a clean address.
    expect(new URL(page.url()).search).toBe('')
    const fakeBox = page.getByTestId('provider-fake').locator('input[type=checkbox]')
    await expect.poll(() => fakeBox.isChecked()).toBe(true)
    // The form starts from loopforge.yml (max_iterations 3, timeout 20s), not from built-in values.
    expect(await page.getByTestId('max-iterations').inputValue()).toBe('3')
    expect(await page.getByTestId('timeout').inputValue()).toBe('20')
    expect(await page.getByTestId('reflect').isChecked()).toBe(true)
    const presetTitles = await page.getByTestId('preset').locator('option').allTextContents()
    expect(presetTitles.some((t) => /\(pt\)/.test(t))).toBe(true)
    expect(presetTitles.some((t) => /\(en\)/.test(t))).toBe(true)
    await page.getByTestId('preset').selectOption('data-structures-en')
    await expect.poll(() => page.getByTestId('prompt').inputValue()).toMatch(/Python/)
    // The preset brings its tests along, in the open Tests field.
    await expect.poll(() => page.getByTestId('tests-yaml').inputValue()).toMatch(/tests:/)
    // The sandbox line: the default limits (no limits: in loopforge.yml) and no network.
    const limits = page.getByTestId('sandbox-limits')
    await expect
      .poll(() => limits.locator('.sandbox-item').allTextContents())
      .toEqual(expect.arrayContaining(['1 GiB memory', '128 processes', '8 MiB output', 'no network']))
    await expect.poll(() => page.getByTestId('sandbox-isolation').textContent()).not.toBe('')
    await h.shot('run-panel')
    // Ticking "Allow network" turns the last item into a warning, until unticked.
    await page.getByTestId('allow-network').check()
    await expect.poll(() => page.getByTestId('sandbox-network').textContent()).toBe('⚠ network allowed')
    await h.shot('run-panel-network')
    await page.getByTestId('allow-network').uncheck()
    await expect.poll(() => page.getByTestId('sandbox-network').textContent()).toBe('no network')
    // On a projector the line stays legible.
    await page.getByTestId('projector').click()
    await h.shot('run-panel-projector')
    await page.getByTestId('projector').click()
    // The runs below type prompts of their own, judged by their exit status.
    await page.getByTestId('tests-clear').click()
    expect(await page.getByTestId('tests-yaml').inputValue()).toBe('')
  })

  it('streams a run live: tokens before the end, a failing iteration, its reflection, then success', async () => {
    await page.getByTestId('max-iterations').fill('4')
    const id = await startRun(page, () => submitPrompt('Print a friendly greeting'))
    const view = runView(page, id)
    // Tokens arrive while the run is still going (no final banner yet).
    await page.waitForFunction(
      (runId) => {
        const v = document.querySelector(`[data-testid=run-view][data-run-id="${runId}"]`)
        const gen = v?.querySelector('[data-testid=stream-generation]')
        return !!gen && (gen.textContent ?? '').length > 20 && !v?.querySelector('[data-testid=run-banner]')
      },
      id,
      { timeout: WAIT, polling: 'raf' },
    )
    await h.shot('live-run-streaming')
    expect(await finalStatus(view)).toBe('success')
    expect(await view.getByTestId('run-banner').textContent()).toMatch(/Success after 2 iterations/)

    const chips = view.getByTestId('iteration-chip')
    expect(await chips.evaluateAll((els) => els.map((e) => e.getAttribute('data-phase')))).toEqual(['error', 'success'])

    // The final code shown is exactly what the fake model sent.
    await expect.poll(() => codeText(view, '[data-testid=final-code]')).toBe(WORKING_CODE)
    await expect.poll(() => view.getByTestId('stdout').textContent()).toBe('hello from loopforge\n')
    expect(await view.getByTestId('tokens').textContent()).not.toMatch(/^0 in/)
    await view.getByTestId('diff-tab').click()
    await expect.poll(() => view.locator('[data-mode=diff] .cm-deletedChunk').count()).toBeGreaterThan(0)
    await h.shot('live-run')

    // Iteration 1: the failure and the reflection on it.
    await chips.nth(0).click()
    await expect.poll(() => view.getByTestId('exit-code').textContent()).toBe('1')
    await expect.poll(() => view.getByTestId('stderr').textContent()).toMatch(/ZeroDivisionError/)
    await expect.poll(() => view.getByTestId('stream-reflection').textContent()).toContain(REFLECTION)
    await expect.poll(() => codeText(view, '[data-testid=code]')).toBe(FAILING_CODE)
    await h.shot('live-run-iteration-1')
  })

  it('Stop cancels a stalled run and shows the cancelled banner', async () => {
    const id = await startRun(page, () => submitPrompt('STALL: think forever'))
    const view = runView(page, id)
    // The model has started answering, and then stalls with its stream open.
    await expect.poll(async () => ((await view.getByTestId('stream-generation').textContent()) ?? '').length, { timeout: WAIT }).toBeGreaterThan(5)
    await expect.poll(() => h.fake.openStreams('fake-model')).toBe(1)
    await page.getByTestId('stop').click()
    expect(await finalStatus(view)).toBe('cancelled')
    await expect.poll(() => page.getByTestId('stop').isDisabled()).toBe(true)
    // The provider call was cancelled too, not left hanging.
    await expect.poll(() => h.fake.openStreams('fake-model')).toBe(0)
    await h.shot('cancelled')
  })

  it('reopens a run from History and replays it step by step', async () => {
    await page.getByTestId('nav-history').click()
    await expect.poll(() => page.getByTestId('session').count()).toBeGreaterThanOrEqual(2)
    await searchHistory('friendly greeting')
    await page.getByTestId('session').first().click()
    const view = page.getByTestId('session-detail').getByTestId('run-view')
    await view.waitFor()
    expect(await view.getAttribute('data-status')).toBe('success')
    await expect.poll(() => view.getByTestId('replay-step').textContent()).toBe('Step 1 of 2')
    await expect.poll(() => view.getByTestId('stderr').textContent()).toMatch(/ZeroDivisionError/)
    await expect.poll(() => view.getByTestId('stream-reflection').textContent()).toContain(REFLECTION)
    await h.shot('history')
    await view.getByTestId('step-next').click()
    await expect.poll(() => view.getByTestId('replay-step').textContent()).toBe('Step 2 of 2')
    await expect.poll(() => codeText(view, '[data-testid=final-code]')).toBe(WORKING_CODE)
    // Arrow keys step too (a presenter's clicker sends them).
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => view.getByTestId('replay-step').textContent()).toBe('Step 1 of 2')
  })

  it('continues a session with a follow-up prompt', async () => {
    await page.getByTestId('follow-up').fill('Now greet the whole class')
    const id = await startRun(page, () => page.getByTestId('continue').click())
    // The new run shows live in the Run panel, the form folded to one line above it.
    await page.getByTestId('stage-bar').waitFor()
    expect(await finalStatus(runView(page, id))).toBe('success')
    // The session now has two runs.
    await page.getByTestId('nav-history').click()
    await searchHistory('friendly greeting')
    await page.getByTestId('session').first().click()
    await expect.poll(() => page.getByTestId('session-detail').getByRole('tab').filter({ hasText: 'fake' }).count()).toBe(2)
    // The follow-up went to the model with the earlier conversation.
    const followUps = h.fake.requests.filter((r) => JSON.stringify(r.messages).includes('Now greet the whole class'))
    expect(followUps.length).toBeGreaterThan(0)
    expect(JSON.stringify(followUps[0].messages)).toContain('Print a friendly greeting')
  })

  it('deletes a session after confirmation', async () => {
    await searchHistory('STALL')
    await page.getByTestId('session').first().click()
    await page.getByTestId('delete').click()
    await page.getByTestId('confirm-delete').click()
    await expect.poll(() => page.getByTestId('session').count()).toBe(0)
    await page.getByTestId('history-search').fill('')
    await expect.poll(() => page.getByTestId('session').count()).toBeGreaterThanOrEqual(1)
  })

  it('browses the server folders in a dialog and sets the chosen one as the workdir', async () => {
    const tmp = realpathSync(tmpdir())
    const dir = mkdtempSync(join(tmp, 'loopforge-e2e-browse-'))
    mkdirSync(join(dir, 'lessons'))
    mkdirSync(join(dir, 'notes'))
    mkdirSync(join(dir, '.hidden'))
    const picker = page.getByRole('dialog', { name: 'Choose the working folder' })
    const shown = () => page.getByTestId('folder-path').getAttribute('data-path')
    try {
      // Escape closes it without a change.
      await page.getByTestId('workdir-browse').click()
      await picker.waitFor()
      await expect.poll(shown).not.toBe('')
      await page.keyboard.press('Escape')
      await picker.waitFor({ state: 'detached' })

      // It starts at the workdir or the home directory, both temp folders here: go up to the temp root.
      await page.getByTestId('workdir-browse').click()
      await expect.poll(shown).not.toBe('')
      for (let i = 0; i < 10 && (await shown()) !== tmp; i++) {
        const before = await shown()
        await page.getByTestId('folder-up').click()
        await expect.poll(shown).not.toBe(before)
      }
      expect(await shown()).toBe(tmp)
      await picker.getByRole('button', { name: basename(dir), exact: true }).click()
      await expect.poll(shown).toBe(dir)
      await expect.poll(() => page.getByTestId('folder-item').allTextContents()).toEqual(['lessons', 'notes'])
      await picker.getByRole('button', { name: 'lessons', exact: true }).click()
      await expect.poll(shown).toBe(join(dir, 'lessons'))
      await page.getByTestId('folder-up').click()
      await expect.poll(shown).toBe(dir)
      await h.shot('folder-picker')

      await picker.getByRole('button', { name: 'Use this folder' }).click()
      await picker.waitFor({ state: 'detached' })
      await expect.poll(() => page.getByTestId('workdir-path').getAttribute('title')).toBe(dir)
      expect(await page.getByTestId('workdir-path').textContent()).toContain(basename(dir))
      expect(await page.getByTestId('workdir-error').count()).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('validates the workdir on the server and shows its error', async () => {
    await page.getByTestId('workdir-change').click()
    await page.getByTestId('workdir-input').fill('/no/such/folder/here')
    await page.getByTestId('workdir-input').press('Enter')
    const err = page.getByTestId('workdir-error')
    await err.waitFor()
    expect((await err.textContent())?.length).toBeGreaterThan(5)
    const dir = mkdtempSync(join(tmpdir(), 'loopforge-e2e-pick-'))
    try {
      await page.getByTestId('workdir-input').fill(dir)
      await page.getByTestId('workdir-input').press('Enter')
      await expect.poll(() => page.getByTestId('workdir-path').textContent()).toContain('loopforge-e2e-pick-')
      await expect.poll(() => err.count()).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('has a dark theme, by toggle and by prefers-color-scheme', async () => {
    await page.getByTestId('nav-run').click()
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme)
    expect(await theme()).toBe('light')
    await setTheme(page, 'dark')
    await expect.poll(theme).toBe('dark')
    await page.getByTestId('iteration-chip').first().waitFor()
    await h.shot('dark-run')
    await page.getByTestId('nav-history').click()
    await page.getByTestId('session').first().click()
    await page.getByTestId('session-detail').getByTestId('run-view').waitFor()
    await h.shot('dark-history')
    await page.getByTestId('projector').click()
    await h.shot('dark-history-projector')
    await page.getByTestId('projector').click()

    const ctx = await newContext(h.browser, { viewport: { width: 1280, height: 800 }, colorScheme: 'dark' })
    try {
      const p = await ctx.newPage()
      await p.goto(h.serve.url)
      await expect.poll(() => p.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    } finally {
      await ctx.close()
    }
  })

  it('says which key a provider needs, and what went wrong when a provider fails', async () => {
    await openForm()
    const notReady = page.getByTestId('providers-not-ready')
    await notReady.locator('summary').click()
    await expect.poll(() => page.getByTestId('provider-needs-key').textContent()).toContain('LOOPFORGE_E2E_MISSING_KEY')
    await tick('offline', true)
    await tick('fake', false)
    const id = await startRun(page, () => submitPrompt('Print a friendly greeting, offline'))
    const view = runView(page, id)
    expect(await finalStatus(view)).toBe('error')
    const message = (await view.getByTestId('run-error').textContent()) ?? ''
    expect(message.length).toBeGreaterThan('The provider said: '.length + 5)
    await h.shot('provider-error')
    await tick('fake', true)
    await tick('offline', false)
  })

  it('resumes from the last event seen when the event connection drops mid-run', async () => {
    // A narrow window (the desktop app's minimum width is 900).
    const ctx = await newContext(h.browser, { viewport: { width: 960, height: 800 } })
    const subscribes: Array<{ op: string; run_id: string; after: number }> = []
    let forwarded = 0
    let lastSeqBeforeDrop = -1
    let dropped = false
    try {
      const p = await ctx.newPage()
      extra = p
      await p.routeWebSocket(/\/api\/ws/, (ws) => {
        const server = ws.connectToServer()
        ws.onMessage((m) => {
          const req = JSON.parse(String(m))
          if (req.op === 'subscribe') subscribes.push(req)
          server.send(m)
        })
        server.onMessage((m) => {
          const e = JSON.parse(String(m)) as { type: string; seq: number }
          if (!dropped && e.type === 'token' && ++forwarded === 6) {
            // Act like the server dropping a slow client.
            dropped = true
            void ws.close({ code: 1013, reason: 'client too slow; resubscribe from the last seq' })
            void server.close()
            return
          }
          if (!dropped) lastSeqBeforeDrop = e.seq
          ws.send(m)
        })
      })
      await p.goto(h.serve.url)
      await appReady(p)
      const id = await startRun(p, () => submitPrompt('Print a friendly greeting after a drop', p))
      const view = runView(p, id)
      expect(await finalStatus(view)).toBe('success')
      expect(dropped).toBe(true)
      const mine = subscribes.filter((s) => s.run_id === id)
      expect(mine.length).toBeGreaterThanOrEqual(2)
      expect(mine[0].after).toBe(0)
      expect(mine[1].after).toBe(lastSeqBeforeDrop)
      expect(await view.getByTestId('iteration-chip').count()).toBe(2)
      await expect.poll(() => codeText(view, '[data-testid=final-code]')).toBe(WORKING_CODE)
      await h.shot('narrow-run', p)
    } finally {
      extra = undefined
      await ctx.close()
    }
  })

  it('compares three providers side by side: one at once, one after a fix, one never', async () => {
    for (const p of ['quick', 'fake', 'never']) await tick(p, true)
    await page.getByTestId('max-iterations').fill('2')
    await expect.poll(() => page.getByTestId('run').textContent()).toBe('Compare 3')
    comparisonId = await startCompare(page, () => submitPrompt('Compare a friendly greeting'))
    const view = compareView(page, comparisonId)
    await view.waitFor()
    await expect
      .poll(() => view.getByTestId('compare-column').evaluateAll((els) => els.map((e) => e.getAttribute('data-provider'))))
      .toEqual(['fake', 'quick', 'never'])
    await expect.poll(() => view.locator('[data-testid=compare-column] [data-testid=stream-generation]').count(), { timeout: WAIT }).toBeGreaterThanOrEqual(2)
    await h.shot('compare-live')
    const table = view.getByTestId('comparison-table')
    await table.waitFor({ timeout: WAIT })
    const row = (p: string) => view.locator(`[data-testid=comparison-row][data-provider=${p}]`)
    const cell = (p: string, col: string) => row(p).locator(`[data-col=${col}]`).textContent()
    expect(await row('quick').getAttribute('data-status')).toBe('success')
    expect(await row('fake').getAttribute('data-status')).toBe('success')
    expect(await row('never').getAttribute('data-status')).toBe('limit_reached')
    expect([await cell('quick', 'iterations'), await cell('quick', 'iterations_to_success'), await cell('quick', 'final_exit_code')]).toEqual(['1', '1', '0'])
    expect([await cell('fake', 'iterations'), await cell('fake', 'iterations_to_success'), await cell('fake', 'final_exit_code')]).toEqual(['2', '2', '0'])
    expect([await cell('never', 'iterations'), await cell('never', 'iterations_to_success'), await cell('never', 'final_exit_code')]).toEqual(['2', '—', '1'])
    expect(await cell('quick', 'lines_of_code')).toBe('2')
    expect(await cell('quick', 'cost_usd')).toBe('—')
    // The quickest to success is highlighted.
    expect(await row('quick').locator('[data-col=iterations_to_success]').getAttribute('class')).toContain('best')
    await view.getByTestId('compare-chart').waitFor()
    // Diff of two final scripts: quick (working) vs never (failing).
    await view.getByTestId('diff-right').selectOption({ label: 'never' })
    await expect.poll(() => view.locator('[data-testid=script-diff] .cm-changedLine, [data-testid=script-diff] .cm-changedText').count()).toBeGreaterThan(0)
    await h.shot('compare-done')
    await table.scrollIntoViewIfNeeded()
    await h.shot('compare-table')
  })

  it('exports the final script of a run as a .py download', async () => {
    const col = compareView(page, comparisonId).locator('[data-testid=compare-column][data-provider=quick]')
    await col.getByTestId('export-menu').locator('summary').click()
    const [download] = await Promise.all([page.waitForEvent('download'), col.getByTestId('export-py').click()])
    expect(download.suggestedFilename()).toMatch(/\.py$/)
    const text = readFileSync(await download.path(), 'utf8')
    expect(text).toContain(WORKING_CODE)
    // The script is the final code, after a short provenance header.
    expect(text.trimEnd().endsWith(WORKING_CODE)).toBe(true)
    await page.keyboard.press('Escape')
  })

  it('cancelling one column leaves the others running; Cancel all stops the rest', async () => {
    const sid = await startCompare(page, () => submitPrompt('STALL: three of them think forever'))
    const view = compareView(page, sid)
    const col = (p: string) => view.locator(`[data-testid=compare-column][data-provider=${p}]`)
    const status = (p: string) => col(p).getByTestId('run-view').getAttribute('data-status')
    // All three models have started answering and then stall with their streams open.
    for (const [p, model] of [['fake', 'fake-model'], ['quick', 'quick-model'], ['never', 'never-model']]) {
      await expect.poll(async () => ((await col(p).getByTestId('stream-generation').textContent()) ?? '').length, { timeout: WAIT }).toBeGreaterThan(5)
      await expect.poll(() => h.fake.openStreams(model)).toBe(1)
    }
    await col('fake').getByTestId('cancel-column').click()
    await expect.poll(() => status('fake'), { timeout: WAIT }).toBe('cancelled')
    // Its provider call ended; the other two are still being answered and still shown running.
    await expect.poll(() => h.fake.openStreams('fake-model')).toBe(0)
    expect([h.fake.openStreams('quick-model'), h.fake.openStreams('never-model')]).toEqual([1, 1])
    expect([await status('quick'), await status('never')]).toEqual(['running', 'running'])
    await h.shot('compare-one-cancelled')
    await view.getByTestId('cancel-all').click()
    await expect.poll(() => view.getByTestId('comparison-row').count(), { timeout: WAIT }).toBe(3)
    expect(await view.getByTestId('comparison-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual(['cancelled', 'cancelled', 'cancelled'])
    await expect.poll(() => h.fake.openStreams('quick-model') + h.fake.openStreams('never-model')).toBe(0)
    for (const p of ['fake', 'never']) await tick(p, false)
  })

  it('reopens a comparison from History', async () => {
    await page.getByTestId('nav-history').click()
    await searchHistory('Compare a friendly greeting')
    await page.getByTestId('session').first().click()
    await page.getByTestId('open-comparison').click()
    const view = compareView(page, comparisonId)
    await view.getByTestId('comparison-table').waitFor()
    await expect.poll(() => view.getByTestId('comparison-row').count()).toBe(3)
  })

  it('shows the statistics per provider', async () => {
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-table').waitFor()
    await expect
      .poll(() => page.getByTestId('stats-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-provider'))))
      .toEqual(expect.arrayContaining(['fake', 'quick', 'never']))
    const quick = (col: string) => page.locator(`[data-testid=stats-row][data-provider=quick] [data-col=${col}]`).textContent()
    await expect.poll(() => quick('runs')).toBe('2')
    expect(await quick('successes')).toBe('1')
    await page.getByTestId('stats-chart').waitFor()
    await h.shot('stats')
  })

  it('switches the UI to Portuguese and keeps it after a reload', async () => {
    await page.getByTestId('lang-pt').click()
    await expect.poll(() => page.getByTestId('nav-history').textContent()).toBe('Histórico')
    expect(await page.getByTestId('nav-stats').textContent()).toBe('Estatísticas')
    await h.shot('stats-pt')
    await page.reload()
    await page.getByTestId('nav-run').click()
    await appReady(page)
    await expect.poll(() => page.getByTestId('run').textContent()).toBe('Executar')
    expect(await page.locator('.providers legend').textContent()).toBe('Provedores')
    await page.getByTestId('provider-fake').waitFor()
    expect(await page.getByTestId('max-iterations').inputValue()).toBe('3')
    await h.shot('run-pt')
    await page.getByTestId('lang-en').click()
    await expect.poll(() => page.getByTestId('nav-history').textContent()).toBe('History')
  })

  it('logged no page errors and no failed request but the refused workdir', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual(['PUT /api/workdir 400'])
  })
})
