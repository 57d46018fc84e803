// End-to-end: Portuguese all the way. With the UI switched to Portuguese, a
// failed run's handout, downloaded through the export menu, has Portuguese
// headings and calls the failing code the last attempt; an error from the
// server is shown in Portuguese.

import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appReady, finalStatus, openApp, runView, screenshotOnFailure, startRun, type Harness } from './harness'

let h: Harness
let page: Page
let runId = ''

screenshotOnFailure('i18n', () => [page])

beforeAll(async () => {
  h = await openApp()
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

describe('Portuguese', () => {
  it('runs a provider that never gets it right, in Portuguese', async () => {
    await page.getByTestId('nav-run').click()
    // Tick the new one first: the form keeps at least one provider ticked.
    await page.getByTestId('provider-never').locator('input[type=checkbox]').setChecked(true)
    await page.getByTestId('provider-fake').locator('input[type=checkbox]').setChecked(false)
    await page.getByTestId('max-iterations').fill('2')
    await page.getByTestId('prompt').fill('Divida por zero, por favor')
    runId = await startRun(page, () => page.getByTestId('run').click())
    const view = runView(page, runId)
    expect(await finalStatus(view)).toBe('limit_reached')
    await expect.poll(() => view.getByTestId('run-banner').textContent()).toContain('Limite de iterações atingido')
  })

  it('downloads a Portuguese handout that calls the failing code the last attempt', async () => {
    const html = await download('html')
    expect(html.name).toMatch(/\.html$/)
    for (const want of ['<html lang="pt">', 'loopforge · apostila', '<h2>Comparação</h2>', 'Iteração 1', 'Iteração 2', '<h3>Última tentativa</h3>', 'limite atingido']) {
      expect(html.text).toContain(want)
    }
    for (const english of ['<h2>Comparison</h2>', 'Final code', 'Código final', 'Iteration 1', 'Last attempt']) {
      expect(html.text).not.toContain(english)
    }
    await page.keyboard.press('Escape')

    const md = await download('md')
    expect(md.text).toContain('## Comparação')
    expect(md.text).toContain('### Última tentativa')
    expect(md.text).not.toContain('### Final code')
    await page.keyboard.press('Escape')
  })

  it('shows an error from the server in Portuguese', async () => {
    await page.getByTestId('workdir-change').click()
    await page.getByTestId('workdir-input').fill('/no/such/folder-for-loopforge')
    await page.getByTestId('workdir-input').press('Enter')
    const error = page.getByTestId('workdir-error')
    await expect.poll(() => error.textContent()).toBe('/no/such/folder-for-loopforge não existe.')
    await h.shot('i18n-pt-error')
    // Back in English, the same kind of error is in English.
    await page.getByTestId('lang-en').click()
    await appReady(page)
    await page.getByTestId('workdir-change').click()
    await page.getByTestId('workdir-input').fill('/no/such/folder-for-loopforge')
    await page.getByTestId('workdir-input').press('Enter')
    await expect.poll(() => page.getByTestId('workdir-error').textContent()).toBe('/no/such/folder-for-loopforge does not exist.')
  })
})
