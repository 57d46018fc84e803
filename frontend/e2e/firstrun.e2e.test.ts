// End-to-end: the first run on a machine where no provider is ready. The
// Run tab shows the first-run panel with this machine's real configuration
// folder (LOOPFORGE_HOME here), in English and then in Portuguese; a key
// written into that folder's .env is picked up by Check again, without a
// restart, and the run form appears with that provider ready. Screenshots:
// test-results/screenshots/first-run-en.png and first-run-pt.png.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, CHROMIUM_ARGS, SHOTS, newContext, screenshotOnFailure } from './harness'
import { startServe, type Serve } from './serve'

// Nothing can be ready: no key in the environment, the local endpoint on a
// port where nothing listens, the coding CLIs at paths that do not exist.
const nothingReady = `providers:
  ollama:
    base_url: http://127.0.0.1:9/v1
  codex:
    binary: /nonexistent/codex
  claude:
    binary: /nonexistent/claude
  gemini:
    binary: /nonexistent/gemini
`

let serve: Serve
let browser: Browser
let page: Page
const pageErrors: string[] = []
const failedRequests: string[] = []

screenshotOnFailure('firstrun', () => [page])

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  serve = await startServe('', { yml: nothingReady })
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  const context = await newContext(browser, { viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  page.on('pageerror', (e) => pageErrors.push(String(e)))
  page.on('console', (m) => {
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
})

describe('first run', () => {
  it('shows the first-run panel with the real configuration folder', async () => {
    const panel = page.getByTestId('first-run')
    await panel.waitFor()
    expect(await panel.getAttribute('data-missing')).toBe('provider')
    await expect.poll(() => page.getByTestId('config-dir').textContent()).toBe(serve.home)
    expect(await page.getByTestId('env-file').textContent()).toContain(join(serve.home, '.env'))
    for (const v of ['GEMINI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY']) {
      await page.getByTestId(`key-${v}`).waitFor()
    }
    expect(await page.getByTestId('ollama-pull').textContent()).toBe('ollama pull qwen2.5-coder:7b')
    expect(await page.getByTestId('run').count()).toBe(0)
    await page.screenshot({ path: join(SHOTS, 'first-run-en.png'), fullPage: true })
  })

  it('speaks Portuguese', async () => {
    await page.getByTestId('lang-pt').click()
    await page.waitForFunction(() => document.documentElement.lang === 'pt-BR')
    const panel = page.getByTestId('first-run')
    await expect.poll(() => panel.locator('h2').textContent()).toBe('Boas-vindas ao loopforge')
    expect(await page.getByTestId('check-again').textContent()).toBe('Verificar de novo')
    expect(await panel.textContent()).toContain(`Crie o arquivo de texto ${join(serve.home, '.env')}`)
    await page.screenshot({ path: join(SHOTS, 'first-run-pt.png'), fullPage: true })
  })

  it('picks up a key added to .env on Check again, without a restart', async () => {
    await page.getByTestId('check-again').click()
    await page.getByTestId('still-not-ready').waitFor()
    writeFileSync(join(serve.home, '.env'), 'OPENAI_API_KEY=sk-e2e-not-a-real-key\n', { mode: 0o600 })
    const reloaded = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/setup/reload')
    await page.getByTestId('check-again').click()
    expect((await reloaded).status()).toBe(200)
    await page.locator('[data-testid=provider-openai][data-state=ready]').waitFor()
    expect(await page.getByTestId('first-run').count()).toBe(0)
    await page.locator('[data-testid=run]:not([disabled])').waitFor()
    expect(pageErrors).toEqual([])
    expect(failedRequests).toEqual([])
  })
})
