// What an end-to-end test file needs around its page: the fake provider,
// `loopforge serve`, Debian's headless Chromium on the tokenised URL, and a
// record of page errors and failed requests to check at the end.

import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
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

export async function openApp(opts: { viewport?: { width: number; height: number } } = {}): Promise<Harness> {
  mkdirSync(SHOTS, { recursive: true })
  const fake = await startFakeOpenAI({ chunkDelayMs: 30, chunkSize: 5 })
  const serve = await startServe(fake.url)
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1440, height: 900 }, colorScheme: 'light' })
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
  return {
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
}
