// End-to-end: pictures. A program that draws a matplotlib figure and calls
// plt.show() (no display: the sandbox saves the figure) shows it as an <img>
// in the run's output panel, again when the run is reopened from History,
// in the HTML handout (embedded, rendered by the browser) and as an image
// output of the notebook. Every wait is on a condition, never on a pause.

import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLOT_CODE, PLOT_MARKER } from './fakeOpenAI'
import { finalStatus, openApp, runView, screenshotOnFailure, SHOTS, startRun, WAIT, type Harness } from './harness'

/** The sandbox runs /usr/bin/python3; scripts/setup.sh installs python3-matplotlib for it. */
const matplotlib = spawnSync('/usr/bin/python3', ['-I', '-c', 'import matplotlib']).status === 0
if (!matplotlib) console.warn('pictures.e2e: skipped — /usr/bin/python3 cannot import matplotlib (sudo apt install python3-matplotlib)')

let h: Harness
let page: Page
let handout: Page | undefined
let runId = ''

screenshotOnFailure('pictures', () => [page, handout])

beforeAll(async () => {
  if (!matplotlib) return
  h = await openApp({ viewport: { width: 1280, height: 800 } })
  page = h.page
})

afterAll(async () => {
  await h?.close()
})

/** Downloads one export of the run shown through its export menu; returns the file's text. */
async function exportOf(format: string): Promise<{ name: string; text: string }> {
  const view = runView(page, runId)
  await view.getByTestId('export-menu').locator('summary').click()
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: WAIT }), view.getByTestId(`export-${format}`).click()])
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') }
}

/** Waits until every <img> under the locator has loaded a picture with pixels; returns their sizes. */
async function loadedSizes(p: Page, selector: string): Promise<Array<[number, number]>> {
  await expect
    .poll(() => p.locator(selector).evaluateAll((els) => els.length > 0 && els.every((e) => (e as HTMLImageElement).complete && (e as HTMLImageElement).naturalWidth > 0)))
    .toBe(true)
  return p.locator(selector).evaluateAll((els) => els.map((e) => [(e as HTMLImageElement).naturalWidth, (e as HTMLImageElement).naturalHeight] as [number, number]))
}

describe.skipIf(!matplotlib)('pictures', () => {
  it('shows the figure a program drew as an <img> in its output panel', async () => {
    await page.getByTestId('prompt').fill(`${PLOT_MARKER}: plot the first four squares`)
    runId = await startRun(page, () => page.getByTestId('run').click())
    const view = runView(page, runId)
    expect(await finalStatus(view)).toBe('success')
    const exec = view.getByTestId('exec')
    await expect.poll(() => exec.getByTestId('stdout').textContent()).toBe('plotted\n')
    const fig = exec.getByTestId('picture')
    await expect.poll(() => fig.count()).toBe(1)
    expect(await fig.getAttribute('data-name')).toBe('figure-1.png')
    const img = fig.locator('img')
    expect(await img.getAttribute('src')).toMatch(/^data:image\/png;base64,/)
    expect(await loadedSizes(page, `[data-run-id="${runId}"] [data-testid=picture] img`)).toEqual([[640, 480]])
    expect(await exec.getByTestId('pictures-skipped').count()).toBe(0)
    // On stage the execution panel scrolls inside: bring the strip into view.
    await fig.scrollIntoViewIfNeeded()
    await h.shot('pictures-run')
    await fig.screenshot({ path: join(SHOTS, 'pictures-figure.png') })
    // Small beside the output; a click shows it at full size, another makes it small again.
    const height = async () => (await img.boundingBox())!.height
    const small = await height()
    await fig.locator('button').click()
    await expect.poll(() => fig.locator('button').getAttribute('aria-pressed')).toBe('true')
    expect(await height()).toBeGreaterThan(small)
    await fig.locator('button').click()
    await expect.poll(height).toBe(small)
  })

  it('shows it again when the run is reopened from History', async () => {
    await page.getByTestId('nav-history').click()
    await page.getByTestId('history-search').fill(PLOT_MARKER)
    await expect.poll(() => page.getByTestId('session').count()).toBe(1)
    await page.getByTestId('session').first().click()
    await page.getByTestId('session-detail').waitFor()
    const view = runView(page, runId)
    await view.getByTestId('picture').waitFor()
    expect(await loadedSizes(page, `[data-testid=session-detail] [data-run-id="${runId}"] [data-testid=picture] img`)).toEqual([[640, 480]])
    await page.getByTestId('nav-run').click()
  })

  it('embeds it in the HTML handout, where the browser renders it', async () => {
    const { name, text } = await exportOf('html')
    expect(name).toMatch(/\.html$/)
    expect(text).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9&#;/=]+" alt="figure-1.png" width="640" height="480">/)
    expect(text).toContain('<figcaption>figure-1.png</figcaption>')
    handout = await h.context.newPage()
    await handout.setContent(text)
    expect(await loadedSizes(handout, '.pictures img')).toEqual([[640, 480]])
    await handout.locator('.pictures').first().scrollIntoViewIfNeeded()
    await h.shot('pictures-handout', handout)
    await handout.close()
  })

  it('has it as an image output of the notebook', async () => {
    const { name, text } = await exportOf('ipynb')
    expect(name).toMatch(/\.ipynb$/)
    const nb = JSON.parse(text) as { cells: Array<{ cell_type: string; source: string[]; outputs?: Array<{ output_type: string; data?: Record<string, unknown> }> }> }
    const cell = nb.cells.find((c) => c.cell_type === 'code')!
    expect(cell.source.join('').trimEnd()).toBe(PLOT_CODE)
    const images = (cell.outputs ?? []).filter((o) => o.output_type === 'display_data')
    expect(images).toHaveLength(1)
    const png = Buffer.from(String(images[0].data!['image/png']), 'base64')
    expect(png.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n')
    expect(png.readUInt32BE(16)).toBe(640) // IHDR width
  })

  it('logged no page errors and no failed request', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual([])
  })
})
