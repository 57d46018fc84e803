// End-to-end: a folder dropped on the web face. A browser gives a page the
// name of what was dropped, never its path, and by default opens a dropped
// file in place of the page. The app cancels that (the page and its run stay),
// names the folder, and points to the folder picker, which opens from the
// note; text dragged into the prompt is left to the browser. The desktop
// window's real drop is tested under Xvfb (scripts/drop-test.sh).

import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApp, screenshotOnFailure, type Harness } from './harness'

let h: Harness
let page: Page

screenshotOnFailure('drop', () => [page])

beforeAll(async () => {
  h = await openApp({ viewport: { width: 1280, height: 800 } })
  page = h.page
})

afterAll(async () => {
  await h?.close()
})

/**
 * Drags a folder named name over the element at selector and drops it, as
 * the browser does (dragenter, dragover, drop with a DataTransfer holding one
 * entry of kind "file"). Returns whether the page cancelled the browser's
 * default for dragover and for drop (opening the dropped item in place of
 * the page).
 */
function dropFolder(selector: string, name: string): Promise<{ over: boolean; drop: boolean }> {
  return page.evaluate(
    ([sel, folder]) => {
      const target = document.querySelector(sel)!
      const dt = new DataTransfer()
      // A page cannot build a directory entry; what it receives of one is the same: a name, kind "file", no path.
      dt.items.add(new File([], folder))
      const fire = (type: string) => !target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }))
      fire('dragenter')
      const over = fire('dragover')
      const drop = fire('drop')
      return { over, drop }
    },
    [selector, name] as const,
  )
}

describe('a folder dropped on the web page', () => {
  it('is named, with a pointer to the picker, and the app stays', async () => {
    const url = page.url()
    const cancelled = await dropFolder('[data-testid=prompt]', 'aula-3')
    expect(cancelled).toEqual({ over: true, drop: true })
    const note = page.getByTestId('drop-note')
    await note.waitFor()
    expect(await note.textContent()).toContain('You dropped “aula-3”.')
    expect(await note.textContent()).toContain('choose it with Browse…')
    expect(page.url()).toBe(url)
    await page.getByTestId('run').waitFor() // still the app
    await h.shot('drop-web-note')
    // The note's Browse… opens the folder picker (and the note goes).
    await page.getByTestId('drop-browse').click()
    await page.getByTestId('folder-picker').waitFor()
    await expect.poll(() => note.count()).toBe(0)
    await h.shot('drop-web-picker')
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByTestId('folder-picker').count()).toBe(0)
  })

  it('says it in Portuguese, and the note can be dismissed', async () => {
    await page.getByTestId('lang-pt').click()
    await expect.poll(() => page.getByTestId('nav-history').textContent()).toBe('Histórico')
    expect(await dropFolder('main', 'projeto final')).toEqual({ over: true, drop: true })
    const note = page.getByTestId('drop-note')
    await expect.poll(() => note.textContent()).toContain('Você soltou “projeto final”.')
    expect(await note.textContent()).toContain('escolha-a com Procurar…')
    await h.shot('drop-web-note-pt')
    await page.getByTestId('drop-dismiss').click()
    await expect.poll(() => note.count()).toBe(0)
    await page.getByTestId('lang-en').click()
  })

  it('leaves text dragged into the prompt to the browser', async () => {
    const cancelled = await page.evaluate(() => {
      const dt = new DataTransfer()
      dt.setData('text/plain', 'print(42)')
      const target = document.querySelector('[data-testid=prompt]')!
      return !target.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }))
    })
    expect(cancelled).toBe(false)
    expect(await page.getByTestId('drop-note').count()).toBe(0)
  })

  it('logged no page errors and no failed request', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual([])
  })
})
