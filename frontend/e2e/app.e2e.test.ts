// End-to-end: the real loopforge binary (`serve`) against a fake
// OpenAI-compatible provider, driven in Debian's headless Chromium.
// Nothing is built here: LOOPFORGE_BIN names the binary (default
// ../build/bin/loopforge-e2e), built with the current frontend embedded.

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAILING_CODE, REFLECTION, WORKING_CODE, startFakeOpenAI, type FakeOpenAI } from './fakeOpenAI'
import { startServe, type Serve } from './serve'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const SHOTS = join(process.cwd(), 'test-results', 'screenshots')

let fake: FakeOpenAI
let serve: Serve
let browser: Browser
let context: BrowserContext
let page: Page
const pageErrors: string[] = []
const failedRequests: string[] = []

async function shot(name: string, p: Page = page) {
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false })
}

/** The text of a CodeMirror view, one line per .cm-line. */
async function codeText(selector: string, p: Page = page): Promise<string> {
  return p.locator(`${selector} .cm-line`).evaluateAll((els) => els.map((e) => e.textContent ?? '').join('\n'))
}

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

async function newRun(prompt: string) {
  await page.getByTestId('nav-run').click()
  await page.getByTestId('prompt').fill(prompt)
  await page.getByTestId('run').click()
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  fake = await startFakeOpenAI({ chunkDelayMs: 30, chunkSize: 5 })
  serve = await startServe(fake.url)
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true })
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' })
  page = await context.newPage()
  page.on('pageerror', (e) => pageErrors.push(String(e)))
  page.on('console', (m) => {
    // Failed requests are checked one by one below (some are expected).
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text())
  })
  page.on('response', (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`)
  })
  await page.goto(serve.url)
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  await fake?.close()
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
    // The sandbox line: the default limits (no limits: in loopforge.yml) and no network.
    const limits = page.getByTestId('sandbox-limits')
    expect(await limits.locator('.sandbox-item').allTextContents()).toEqual(
      expect.arrayContaining(['1 GiB memory', '128 processes', '8 MiB output', 'no network']),
    )
    expect(await page.getByTestId('sandbox-isolation').textContent()).not.toBe('')
    await shot('run-panel')
    // Ticking "Allow network" turns the last item into a warning, until unticked.
    await page.getByTestId('allow-network').check()
    await expect.poll(() => page.getByTestId('sandbox-network').textContent()).toBe('⚠ network allowed')
    await shot('run-panel-network')
    await page.getByTestId('allow-network').uncheck()
    expect(await page.getByTestId('sandbox-network').textContent()).toBe('no network')
    // On a projector the line stays legible.
    await page.getByTestId('projector').click()
    await shot('run-panel-projector')
    await page.getByTestId('projector').click()
  })

  it('streams a run live: tokens before the end, a failing iteration, its reflection, then success', async () => {
    await page.getByTestId('max-iterations').fill('4')
    await newRun('Print a friendly greeting')
    // Tokens arrive while the run is still going (no final banner yet).
    await page.waitForFunction(
      () => {
        const gen = document.querySelector('[data-testid=stream-generation]')
        return !!gen && (gen.textContent ?? '').length > 20 && !document.querySelector('[data-testid=run-banner]')
      },
      undefined,
      { timeout: 20_000, polling: 'raf' },
    )
    await shot('live-run-streaming')
    const banner = page.getByTestId('run-banner')
    await banner.waitFor({ timeout: 30_000 })
    expect(await banner.getAttribute('data-status')).toBe('success')
    expect(await banner.textContent()).toMatch(/Success after 2 iterations/)

    const chips = page.getByTestId('iteration-chip')
    expect(await chips.count()).toBe(2)
    expect(await chips.nth(0).getAttribute('data-phase')).toBe('error')
    expect(await chips.nth(1).getAttribute('data-phase')).toBe('success')

    // The final code shown is exactly what the fake model sent.
    expect(await codeText('[data-testid=final-code]')).toBe(WORKING_CODE)
    expect(await page.getByTestId('stdout').textContent()).toBe('hello from loopforge\n')
    expect(await page.getByTestId('tokens').textContent()).not.toMatch(/^0 in/)
    await page.getByTestId('diff-tab').click()
    await expect.poll(() => page.locator('[data-mode=diff] .cm-deletedChunk').count()).toBeGreaterThan(0)
    await shot('live-run')

    // Iteration 1: the failure and the reflection on it.
    await chips.nth(0).click()
    expect(await page.getByTestId('exit-code').textContent()).toBe('1')
    expect(await page.getByTestId('stderr').textContent()).toMatch(/ZeroDivisionError/)
    expect(await page.getByTestId('stream-reflection').textContent()).toContain(REFLECTION)
    expect(await codeText('[data-testid=code]')).toBe(FAILING_CODE)
    await shot('live-run-iteration-1')
  })

  it('Stop cancels a stalled run and shows the cancelled banner', async () => {
    await newRun('STALL: think forever')
    await page.waitForFunction(() => (document.querySelector('[data-testid=stream-generation]')?.textContent ?? '').length > 5, undefined, {
      timeout: 20_000,
    })
    const t0 = Date.now()
    await page.getByTestId('stop').click()
    const banner = page.getByTestId('run-banner')
    await banner.waitFor({ timeout: 15_000 })
    expect(await banner.getAttribute('data-status')).toBe('cancelled')
    expect(Date.now() - t0).toBeLessThan(10_000)
    expect(await page.getByTestId('stop').isDisabled()).toBe(true)
    await shot('cancelled')
  })

  it('reopens a run from History and replays it step by step', async () => {
    await page.getByTestId('nav-history').click()
    await expect.poll(() => page.getByTestId('session').count()).toBeGreaterThanOrEqual(2)
    await searchHistory('friendly greeting')
    await page.getByTestId('session').first().click()
    const view = page.getByTestId('session-detail').getByTestId('run-view')
    await view.waitFor()
    expect(await view.getAttribute('data-status')).toBe('success')
    await expect.poll(() => page.getByTestId('replay-step').textContent()).toBe('Step 1 of 2')
    expect(await page.getByTestId('stderr').textContent()).toMatch(/ZeroDivisionError/)
    expect(await page.getByTestId('stream-reflection').textContent()).toContain(REFLECTION)
    await shot('history')
    await page.getByTestId('step-next').click()
    await expect.poll(() => page.getByTestId('replay-step').textContent()).toBe('Step 2 of 2')
    expect(await codeText('[data-testid=final-code]')).toBe(WORKING_CODE)
    // Arrow keys step too (a presenter's clicker sends them).
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => page.getByTestId('replay-step').textContent()).toBe('Step 1 of 2')
  })

  it('continues a session with a follow-up prompt', async () => {
    await page.getByTestId('follow-up').fill('Now greet the whole class')
    await page.getByTestId('continue').click()
    // The new run shows live in the Run panel.
    const banner = page.getByTestId('run-banner')
    await page.getByTestId('prompt').waitFor()
    await banner.waitFor({ timeout: 30_000 })
    expect(await banner.getAttribute('data-status')).toBe('success')
    // The session now has two runs.
    await page.getByTestId('nav-history').click()
    await searchHistory('friendly greeting')
    await page.getByTestId('session').first().click()
    await expect.poll(() => page.getByTestId('session-detail').getByRole('tab').filter({ hasText: 'fake' }).count()).toBe(2)
    // The follow-up went to the model with the earlier conversation.
    const last = fake.requests[fake.requests.length - 1]
    expect(JSON.stringify(last.messages)).toContain('Print a friendly greeting')
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
      expect(await page.getByTestId('folder-item').allTextContents()).toEqual(['lessons', 'notes'])
      await picker.getByRole('button', { name: 'lessons', exact: true }).click()
      await expect.poll(shown).toBe(join(dir, 'lessons'))
      await page.getByTestId('folder-up').click()
      await expect.poll(shown).toBe(dir)
      await shot('folder-picker')

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
      expect(await err.count()).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('has a dark theme, by toggle and by prefers-color-scheme', async () => {
    await page.getByTestId('nav-run').click()
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme)
    expect(await theme()).toBe('light')
    for (let i = 0; i < 3 && (await page.getByTestId('theme').getAttribute('data-theme')) !== 'dark'; i++) {
      await page.getByTestId('theme').click()
    }
    expect(await theme()).toBe('dark')
    await page.getByTestId('iteration-chip').first().waitFor()
    await shot('dark-run')
    await page.getByTestId('nav-history').click()
    await page.getByTestId('session').first().click()
    await page.getByTestId('session-detail').getByTestId('run-view').waitFor()
    await shot('dark-history')
    await page.getByTestId('projector').click()
    await shot('dark-history-projector')
    await page.getByTestId('projector').click()

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' })
    try {
      const p = await ctx.newPage()
      await p.goto(serve.url)
      await expect.poll(() => p.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    } finally {
      await ctx.close()
    }
  })

  it('says which key a provider needs, and what went wrong when a provider fails', async () => {
    await page.getByTestId('nav-run').click()
    const notReady = page.getByTestId('providers-not-ready')
    await notReady.locator('summary').click()
    expect(await page.getByTestId('provider-needs-key').textContent()).toContain('LOOPFORGE_E2E_MISSING_KEY')
    await page.getByTestId('provider-offline').locator('input[type=checkbox]').check()
    await page.getByTestId('provider-fake').locator('input[type=checkbox]').uncheck()
    await newRun('Print a friendly greeting, offline')
    // Wait for this run's banner (the previous run's may still be on screen for a moment).
    const banner = page.locator('[data-testid=run-banner]:not([data-status=success])')
    await banner.waitFor({ timeout: 45_000 })
    expect(await banner.getAttribute('data-status')).toBe('error')
    const message = (await page.getByTestId('run-error').textContent()) ?? ''
    expect(message.length).toBeGreaterThan('The provider said: '.length + 5)
    await shot('provider-error')
    await page.getByTestId('provider-fake').locator('input[type=checkbox]').check()
    await page.getByTestId('provider-offline').locator('input[type=checkbox]').uncheck()
  })

  it('resumes from the last event seen when the event connection drops mid-run', async () => {
    // A narrow window (the desktop app's minimum width is 900).
    const ctx = await browser.newContext({ viewport: { width: 960, height: 800 } })
    const subscribes: Array<{ op: string; run_id: string; after: number }> = []
    let forwarded = 0
    let lastSeqBeforeDrop = -1
    let dropped = false
    try {
      const p = await ctx.newPage()
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
      await p.goto(serve.url)
      await p.getByTestId('prompt').fill('Print a friendly greeting after a drop')
      await p.getByTestId('run').click()
      const banner = p.getByTestId('run-banner')
      await banner.waitFor({ timeout: 30_000 })
      expect(dropped).toBe(true)
      expect(await banner.getAttribute('data-status')).toBe('success')
      expect(subscribes).toHaveLength(2)
      expect(subscribes[0].after).toBe(0)
      expect(subscribes[1]).toMatchObject({ run_id: subscribes[0].run_id, after: lastSeqBeforeDrop })
      expect(await p.getByTestId('iteration-chip').count()).toBe(2)
      expect(await codeText('[data-testid=final-code]', p)).toBe(WORKING_CODE)
      await shot('narrow-run', p)
    } finally {
      await ctx.close()
    }
  })

  it('compares three providers side by side: one at once, one after a fix, one never', async () => {
    await page.getByTestId('nav-run').click()
    for (const p of ['quick', 'fake', 'never']) await page.getByTestId(`provider-${p}`).locator('input[type=checkbox]').check()
    await page.getByTestId('max-iterations').fill('2')
    expect(await page.getByTestId('run').textContent()).toBe('Compare 3')
    await newRun('Compare a friendly greeting')
    const view = page.getByTestId('compare-view')
    await view.waitFor()
    expect(await page.getByTestId('compare-column').evaluateAll((els) => els.map((e) => e.getAttribute('data-provider')))).toEqual(['fake', 'quick', 'never'])
    await page.waitForFunction(() => (document.querySelectorAll('[data-testid=compare-column] [data-testid=stream-generation]').length >= 2), undefined, { timeout: 20_000 })
    await shot('compare-live')
    const table = page.getByTestId('comparison-table')
    await table.waitFor({ timeout: 45_000 })
    const row = (p: string) => page.locator(`[data-testid=comparison-row][data-provider=${p}]`)
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
    await page.getByTestId('compare-chart').waitFor()
    // Diff of two final scripts: quick (working) vs never (failing).
    await page.getByTestId('diff-right').selectOption({ label: 'never' })
    await expect.poll(() => page.locator('[data-testid=script-diff] .cm-changedLine, [data-testid=script-diff] .cm-changedText').count()).toBeGreaterThan(0)
    await shot('compare-done')
    await table.scrollIntoViewIfNeeded()
    await shot('compare-table')
  })

  it('exports the final script of a run as a .py download', async () => {
    const col = page.locator('[data-testid=compare-column][data-provider=quick]')
    await col.getByTestId('export-menu').locator('summary').click()
    const [download] = await Promise.all([page.waitForEvent('download'), col.getByTestId('export-py').click()])
    expect(download.suggestedFilename()).toMatch(/\.py$/)
    const path = await download.path()
    const text = readFileSync(path, 'utf8')
    expect(text).toContain(WORKING_CODE)
    // The script is the final code, after a short provenance header.
    expect(text.trimEnd().endsWith(WORKING_CODE)).toBe(true)
    await page.keyboard.press('Escape')
  })

  it('cancelling one column leaves the others running; Cancel all stops the rest', async () => {
    await page.getByTestId('nav-run').click()
    await newRun('STALL: three of them think forever')
    await page.getByTestId('compare-view').waitFor()
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-testid=compare-column] [data-testid=stream-generation]')].filter((e) => (e.textContent ?? '').length > 5).length === 3,
      undefined,
      { timeout: 20_000 },
    )
    const col = (p: string) => page.locator(`[data-testid=compare-column][data-provider=${p}]`)
    await col('fake').getByTestId('cancel-column').click()
    await expect.poll(() => col('fake').getByTestId('run-view').getAttribute('data-status'), { timeout: 15_000 }).toBe('cancelled')
    await new Promise((r) => setTimeout(r, 500))
    expect(await col('quick').getByTestId('run-view').getAttribute('data-status')).toBe('running')
    expect(await col('never').getByTestId('run-view').getAttribute('data-status')).toBe('running')
    await shot('compare-one-cancelled')
    await page.getByTestId('cancel-all').click()
    await expect.poll(() => page.getByTestId('comparison-row').count(), { timeout: 15_000 }).toBe(3)
    expect(await page.getByTestId('comparison-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual(['cancelled', 'cancelled', 'cancelled'])
    for (const p of ['fake', 'never']) await page.getByTestId(`provider-${p}`).locator('input[type=checkbox]').uncheck()
  })

  it('reopens a comparison from History', async () => {
    await page.getByTestId('nav-history').click()
    await searchHistory('Compare a friendly greeting')
    await page.getByTestId('session').first().click()
    await page.getByTestId('open-comparison').click()
    await page.getByTestId('comparison-table').waitFor({ timeout: 15_000 })
    expect(await page.getByTestId('comparison-row').count()).toBe(3)
  })

  it('shows the statistics per provider', async () => {
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-table').waitFor()
    const providers = await page.getByTestId('stats-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-provider')))
    expect(providers).toEqual(expect.arrayContaining(['fake', 'quick', 'never']))
    const quickRuns = Number(await page.locator('[data-testid=stats-row][data-provider=quick] [data-col=runs]').textContent())
    expect(quickRuns).toBe(2)
    expect(await page.locator('[data-testid=stats-row][data-provider=quick] [data-col=successes]').textContent()).toBe('1')
    await page.getByTestId('stats-chart').waitFor()
    await shot('stats')
  })

  it('switches the UI to Portuguese and keeps it after a reload', async () => {
    await page.getByTestId('lang-pt').click()
    await expect.poll(() => page.getByTestId('nav-history').textContent()).toBe('Histórico')
    expect(await page.getByTestId('nav-stats').textContent()).toBe('Estatísticas')
    await shot('stats-pt')
    await page.reload()
    await page.getByTestId('nav-run').click()
    await expect.poll(() => page.getByTestId('run').textContent()).toBe('Executar')
    expect(await page.locator('.providers legend').textContent()).toBe('Provedores')
    await page.getByTestId('provider-fake').waitFor()
    expect(await page.getByTestId('max-iterations').inputValue()).toBe('3')
    await shot('run-pt')
    await page.getByTestId('lang-en').click()
    await expect.poll(() => page.getByTestId('nav-history').textContent()).toBe('History')
  })

  it('logged no page errors and no failed request but the refused workdir', () => {
    expect(pageErrors).toEqual([])
    expect(failedRequests).toEqual(['PUT /api/workdir 400'])
  })
})
