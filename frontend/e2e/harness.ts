// What an end-to-end test file needs around its page: the fake provider,
// `loopforge serve`, Debian's headless Chromium on the tokenised URL, a
// record of page errors and failed requests to check at the end, and the
// helpers that tie a step to the run it started.
//
// Every wait here is on a condition (an element, an attribute, a server
// answer), never on a pause. The timeouts are generous on purpose: they only
// bound how long a broken build takes to fail, and a loaded two-core machine
// can take many seconds for a step that takes one on an idle one.

import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core'
import { beforeEach } from 'vitest'
import { startFakeOpenAI, type FakeOpenAI } from './fakeOpenAI'
import { startServe, type Serve } from './serve'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
export const SHOTS = join(process.cwd(), 'test-results', 'screenshots')
/** Screenshots of the page at the moment a test failed (test-results/ is git-ignored). */
export const FAILURE_SHOTS = join(process.cwd(), 'test-results', 'failures')

/** The longest any one condition is waited for (a whole run of the fake model included). */
export const WAIT = 90_000

export interface Harness {
  fake: FakeOpenAI
  serve: Serve
  browser: Browser
  context: BrowserContext
  page: Page
  /** Uncaught page errors and console errors (failed loads are in failedRequests). */
  pageErrors: string[]
  /** "METHOD /path STATUS" of every response with status ≥ 400. */
  failedRequests: string[]
  shot(name: string, p?: Page): Promise<void>
  close(): Promise<void>
}

/** A browser context whose every Playwright wait defaults to WAIT. */
export async function newContext(browser: Browser, opts: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light', ...opts })
  context.setDefaultTimeout(WAIT)
  return context
}

/** Waits until the app has loaded its providers and settings: before that Run is disabled and the numbers are blank. */
export async function appReady(page: Page): Promise<void> {
  await page.locator('[data-testid=max-iterations]:not([disabled])').waitFor({ timeout: WAIT })
  await page.locator('[data-testid=run]:not([disabled])').waitFor({ timeout: WAIT })
}

export interface OpenOptions {
  viewport?: { width: number; height: number }
  /** The browser's time zone (IANA), e.g. to check that exports are dated in it. */
  timezoneId?: string
  /** The "fake" provider answers in prose with a fenced block (as CLI providers do), not in JSON. */
  unstructured?: boolean
}

export async function openApp(opts: OpenOptions = {}): Promise<Harness> {
  mkdirSync(SHOTS, { recursive: true })
  const fake = await startFakeOpenAI({ chunkDelayMs: 30, chunkSize: 5 })
  const serve = await startServe(fake.url, { structured: !opts.unstructured })
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  const context = await newContext(browser, { ...(opts.viewport ? { viewport: opts.viewport } : {}), ...(opts.timezoneId ? { timezoneId: opts.timezoneId } : {}) })
  const page = await context.newPage()
  const pageErrors: string[] = []
  const failedRequests: string[] = []
  page.on('pageerror', (e) => pageErrors.push(String(e)))
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text())
  })
  page.on('response', (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`)
  })
  await page.goto(serve.url)
  await appReady(page)
  const h: Harness = {
    fake,
    serve,
    browser,
    context,
    page,
    pageErrors,
    failedRequests,
    shot: async (name, p = page) => {
      await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false })
    },
    close: async () => {
      await browser.close()
      await serve.stop()
      await fake.close()
    },
  }
  return h
}

/**
 * Registers, for every test of the calling file, a full-page screenshot of
 * the current page (and of extra pages a test opened) when the test fails,
 * under test-results/failures/<file>--<test>.png.
 */
export function screenshotOnFailure(file: string, pages: () => Array<Page | undefined>): void {
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      mkdirSync(FAILURE_SHOTS, { recursive: true })
      const name = `${file}--${task.name}`.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 120)
      let i = 0
      for (const p of pages()) {
        if (!p || p.isClosed()) continue
        const path = join(FAILURE_SHOTS, `${name}${i++ ? `-${i}` : ''}.png`)
        await p.screenshot({ path, fullPage: true, timeout: 15_000 }).catch((err: unknown) => {
          console.error(`could not save the failure screenshot ${path}: ${String(err)}`)
        })
      }
    })
  })
}

function isPost(path: string) {
  return (r: { request(): { method(): string }; url(): string }) => r.request().method() === 'POST' && new URL(r.url()).pathname === path
}

/**
 * Runs start (a click on Run or Continue) and returns the id of the run it
 * started, from the server's answer. Until the page has that answer it still
 * shows the previous run, banner and all: scope what follows with runView.
 */
export async function startRun(page: Page, start: () => Promise<void>): Promise<string> {
  const answered = page.waitForResponse(isPost('/api/runs'), { timeout: WAIT })
  await start()
  const r = await answered
  if (!r.ok()) throw new Error(`POST /api/runs answered ${r.status()}: ${await r.text()}`)
  return ((await r.json()) as { run_id: string }).run_id
}

/** Like startRun for a comparison: returns the comparison's session id. */
export async function startCompare(page: Page, start: () => Promise<void>): Promise<string> {
  const answered = page.waitForResponse(isPost('/api/compare'), { timeout: WAIT })
  await start()
  const r = await answered
  if (!r.ok()) throw new Error(`POST /api/compare answered ${r.status()}: ${await r.text()}`)
  return ((await r.json()) as { session_id: string }).session_id
}

/** The view of one run, by id (in the Run panel, a comparison column or History). */
export function runView(scope: Page | Locator, runId: string): Locator {
  return scope.locator(`[data-testid=run-view][data-run-id="${runId}"]`)
}

/** The view of one comparison, by session id. */
export function compareView(page: Page, sessionId: string): Locator {
  return page.locator(`[data-testid=compare-view][data-session-id="${sessionId}"]`)
}

/** Waits for the run shown in view to end and returns its final status (the banner's). */
export async function finalStatus(view: Locator): Promise<string> {
  const banner = view.getByTestId('run-banner')
  await banner.waitFor({ timeout: WAIT })
  return (await banner.getAttribute('data-status')) ?? ''
}

/** The text of a CodeMirror view, one line per .cm-line. */
export async function codeText(scope: Page | Locator, selector: string): Promise<string> {
  return scope.locator(`${selector} .cm-line`).evaluateAll((els) => els.map((e) => e.textContent ?? '').join('\n'))
}

/** Clicks the theme button until it is on `want` (it cycles light → dark → system), waiting for each change. */
export async function setTheme(page: Page, want: 'light' | 'dark' | 'system'): Promise<void> {
  const button = page.getByTestId('theme')
  for (let i = 0; i < 3; i++) {
    const now = await button.getAttribute('data-theme')
    if (now === want) return
    await button.click()
    await page.locator(`[data-testid=theme]:not([data-theme="${now}"])`).waitFor({ timeout: WAIT })
  }
  throw new Error(`the theme button never reached ${want} (now ${await button.getAttribute('data-theme')})`)
}
