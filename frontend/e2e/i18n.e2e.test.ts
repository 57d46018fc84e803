// End-to-end: Portuguese all the way. With the UI switched to Portuguese, a
// failed run's execution panel words what the sandbox reported (status,
// protections, how it ended, notes) in Portuguese; its handout, downloaded
// through the export menu, has Portuguese headings, calls the failing code
// the last attempt and dates the session in the browser's time zone; an
// error from the server is shown in Portuguese and follows a switch of
// language while it is on screen. Screenshots of the main views in
// Portuguese at 1280×800 go to test-results/screenshots/i18n-pt-*.png.

import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { finalStatus, openApp, runView, screenshotOnFailure, startRun, type Harness } from './harness'

let h: Harness
let page: Page
let runId = ''

screenshotOnFailure('i18n', () => [page])

beforeAll(async () => {
  h = await openApp({ viewport: { width: 1280, height: 800 }, timezoneId: 'America/Sao_Paulo' })
  page = h.page
  await page.getByTestId('lang-pt').click()
  await page.waitForFunction(() => document.documentElement.lang === 'pt-BR')
})

afterAll(async () => {
  await h?.close()
})

/** Downloads one export of the run through its menu and returns the file's text. */
async function download(format: string): Promise<{ name: string; text: string }> {
  const view = runView(page, runId)
  await view.getByTestId('export-menu').locator('summary').click()
  const [file] = await Promise.all([page.waitForEvent('download'), view.getByTestId(`export-${format}`).click()])
  return { name: file.suggestedFilename(), text: readFileSync(await file.path(), 'utf8') }
}

/** English the execution panel used to show in a Portuguese UI (the sandbox's own words). */
const englishExec = [
  /\bexit \d/,
  /\b(files|network|processes|memory|signals) [✓✗]/,
  /no (file-system|network) isolation/,
  /network access allowed/,
  /cgroup has no/,
  /timed out/,
  /\bran cleanly\b/,
  /process limit/,
  /pictures not kept/,
]

describe('Portuguese', () => {
  it('runs a provider that never gets it right, in Portuguese', async () => {
    await page.getByTestId('nav-run').click()
    // Tick the new one first: the form keeps at least one provider ticked.
    await page.getByTestId('provider-never').locator('input[type=checkbox]').setChecked(true)
    await page.getByTestId('provider-fake').locator('input[type=checkbox]').setChecked(false)
    await page.getByTestId('max-iterations').fill('2')
    await page.getByTestId('prompt').fill('Divida por zero, por favor')
    await h.shot('i18n-pt-form')
    // Why the other providers are not ready, in Portuguese too (a missing
    // key, a coding CLI not installed).
    await page.getByTestId('providers-not-ready').locator('summary').click()
    const reasons = await page.getByTestId('providers-not-ready').locator('.provider-reason').allTextContents()
    expect(reasons.length).toBeGreaterThan(0)
    for (const r of reasons) expect(r).not.toMatch(/\bno API key\b|is not installed|not found/)
    expect(reasons.join(' ')).toMatch(/sem chave de API|não está instalada/)
    await h.shot('i18n-pt-providers')
    await page.getByTestId('providers-not-ready').locator('summary').click()
    runId = await startRun(page, () => page.getByTestId('run').click())
    const view = runView(page, runId)
    expect(await finalStatus(view)).toBe('limit_reached')
    await expect.poll(() => view.getByTestId('run-banner').textContent()).toContain('Limite de iterações atingido')
  })

  it("words the execution panel in Portuguese: status, protections, how it ended, the sandbox's notes", async () => {
    const view = runView(page, runId)
    const exec = view.getByTestId('exec')
    await exec.getByTestId('exec-status').waitFor()
    expect(await exec.getByTestId('exec-status').getAttribute('data-status')).toBe('error')
    expect(await exec.getByTestId('exec-status').textContent()).toBe('erro')
    expect(await exec.getByTestId('exec-desc').textContent()).toMatch(/^código de saída 1: \S/)
    expect(await exec.getByTestId('protections').locator('span').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^arquivos [✓✗]$/), expect.stringMatching(/^rede [✓✗]$/), expect.stringMatching(/^sinais [✓✗]$/)]),
    )
    // What the program printed stays as it was; everything else is Portuguese.
    const words = (await exec.evaluate((el) => {
      const c = el.cloneNode(true) as HTMLElement
      c.querySelectorAll('pre').forEach((p) => p.remove())
      return c.innerText
    })) as string
    for (const english of englishExec) expect(words).not.toMatch(english)
    for (const chip of await view.getByTestId('iteration-chip').all()) {
      expect((await chip.getAttribute('title')) ?? '').not.toMatch(/\bexit \d|ran cleanly/)
    }
    await h.shot('i18n-pt-run')
  })

  it('downloads a Portuguese handout that calls the failing code the last attempt, dated in the reader’s zone', async () => {
    const html = await download('html')
    expect(html.name).toMatch(/\.html$/)
    for (const want of ['<html lang="pt">', 'loopforge · apostila', '<h2>Comparação</h2>', 'Iteração 1', 'Iteração 2', '<h3>Última tentativa</h3>', 'limite atingido']) {
      expect(html.text).toContain(want)
    }
    for (const english of ['<h2>Comparison</h2>', 'Final code', 'Código final', 'Iteration 1', 'Last attempt', 'exit 1', 'timed out', 'ran cleanly']) {
      expect(html.text).not.toContain(english)
    }
    // The browser is in São Paulo (UTC−3, no daylight saving time since 2019).
    expect(html.text).toMatch(/\d\d\/\d\d\/\d{4} \d\d:\d\d UTC-03/)
    expect(html.text).not.toMatch(/\d\d:\d\d UTC\b(?!-)/)
    await page.keyboard.press('Escape')

    const md = await download('md')
    expect(md.text).toContain('## Comparação')
    expect(md.text).toContain('### Última tentativa')
    expect(md.text).not.toContain('### Final code')
    expect(md.text).toMatch(/Sessão de \d\d\/\d\d\/\d{4} \d\d:\d\d UTC-03/)
    await page.keyboard.press('Escape')
  })

  it('shows the history and the statistics in Portuguese', async () => {
    await page.getByTestId('nav-history').click()
    await page.getByTestId('session').first().click()
    await page.getByTestId('session-detail').waitFor()
    await h.shot('i18n-pt-history')
    await page.getByTestId('nav-stats').click()
    await page.getByTestId('stats-table').waitFor()
    await h.shot('i18n-pt-stats')
    await page.getByTestId('nav-run').click()
  })

  it('shows an error from the server in Portuguese, and in English after switching language', async () => {
    await page.getByTestId('workdir-change').click()
    await page.getByTestId('workdir-input').fill('/no/such/folder-for-loopforge')
    await page.getByTestId('workdir-input').press('Enter')
    const error = page.getByTestId('workdir-error')
    await expect.poll(() => error.textContent()).toBe('/no/such/folder-for-loopforge não existe.')
    await h.shot('i18n-pt-error')
    // The same error, still on screen, follows the language: it is kept as
    // its code and parameters, not as words.
    await page.getByTestId('lang-en').click()
    await page.waitForFunction(() => document.documentElement.lang === 'en')
    await expect.poll(() => page.getByTestId('workdir-error').textContent()).toBe('/no/such/folder-for-loopforge does not exist.')
    await page.getByTestId('lang-pt').click()
    await expect.poll(() => page.getByTestId('workdir-error').textContent()).toBe('/no/such/folder-for-loopforge não existe.')
  })
})
