// End-to-end: the real loopforge binary (`serve`) against a fake
// OpenAI-compatible provider, driven in Debian's headless Chromium.
// Nothing is built here: LOOPFORGE_BIN names the binary (default
// ../build/bin/loopforge-e2e), built with the current frontend embedded.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
    const fakeRadio = page.getByTestId('provider-fake').locator('input[type=radio]')
    await expect.poll(() => fakeRadio.isChecked()).toBe(true)
    const presetTitles = await page.getByTestId('preset').locator('option').allTextContents()
    expect(presetTitles.some((t) => /\(pt\)/.test(t))).toBe(true)
    expect(presetTitles.some((t) => /\(en\)/.test(t))).toBe(true)
    await page.getByTestId('preset').selectOption('data-structures-en')
    await expect.poll(() => page.getByTestId('prompt').inputValue()).toMatch(/Python/)
    await shot('run-panel')
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
    await page.getByTestId('provider-offline').locator('input[type=radio]').check()
    await newRun('Print a friendly greeting, offline')
    const banner = page.getByTestId('run-banner')
    await banner.waitFor({ timeout: 45_000 })
    expect(await banner.getAttribute('data-status')).toBe('error')
    const message = (await page.getByTestId('run-error').textContent()) ?? ''
    expect(message.length).toBeGreaterThan('The provider said: '.length + 5)
    await shot('provider-error')
    await page.getByTestId('provider-fake').locator('input[type=radio]').check()
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

  it('logged no page errors and no failed request but the refused workdir', () => {
    expect(pageErrors).toEqual([])
    expect(failedRequests).toEqual(['PUT /api/workdir 400'])
  })
})
