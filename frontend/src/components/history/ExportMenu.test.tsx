// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../api'
import { App } from '../../App'
import type { SessionDetail } from '../../api/types'
import { createStores, StoresProvider } from '../../stores'
import { fakeApi, memoryStorage, sessionDetail, type FakeApi } from '../../test/fakeApi'
import { ExportMenu } from './ExportMenu'

afterEach(cleanup)

const NO_CODE = 'this run produced no code to export'

function renderMenu(api: FakeApi, props: Parameters<typeof ExportMenu>[0]) {
  const saveFile = vi.fn()
  const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn(), lang: 'en', saveFile })
  render(
    <StoresProvider stores={stores}>
      <ExportMenu {...props} />
    </StoresProvider>,
  )
  return { stores, saveFile }
}

/** A session whose only run ended with a rejected key: no iterations, no code. */
function codelessSession(): SessionDetail {
  const d = sessionDetail()
  const run = { ...d.runs![0], status: 'error', iterations: 0, final_code: '', error: 'fake: the API key was rejected (HTTP 401); check FAKE_KEY' }
  return { ...d, runs: [run], iterations: { [run.id]: [] } }
}

describe('ExportMenu in the browser', () => {
  it('fetches the export and hands the file to the browser', async () => {
    const api = fakeApi()
    const { saveFile } = renderMenu(api, { sessionId: 'sess-1', runId: 'run-1' })
    const py = screen.getByTestId('export-py') as HTMLAnchorElement
    // Still a real link (href + download), so it works without script too.
    expect(py.getAttribute('href')).toBe('/api/sessions/sess-1/export?format=py&run=run-1&lang=en')
    expect(py.hasAttribute('download')).toBe(true)
    fireEvent.click(py)
    await waitFor(() => expect(saveFile).toHaveBeenCalledOnce())
    expect(api.fetchExport).toHaveBeenCalledWith('sess-1', 'py', 'run-1', 'en', Intl.DateTimeFormat().resolvedOptions().timeZone)
    expect(saveFile.mock.calls[0][0]).toBe('sess-1.py')
    expect(screen.queryByTestId('export-error')).toBeNull()
  })

  it("shows the server's refusal instead of a silently cancelled download", async () => {
    const api = fakeApi()
    api.fetchExport!.mockRejectedValue(new ApiError(`export: fake run "run-1": ${NO_CODE} (status error)`, 409))
    const { saveFile } = renderMenu(api, { sessionId: 'sess-1', runId: 'run-1' })
    fireEvent.click(screen.getByTestId('export-md'))
    const alert = await screen.findByTestId('export-error')
    expect(alert.textContent).toContain('Export failed')
    expect(alert.textContent).toContain(NO_CODE)
    expect(saveFile).not.toHaveBeenCalled()
  })

  it('disables the script and the notebook of a run without code, saying why', () => {
    const api = fakeApi()
    renderMenu(api, { sessionId: 'sess-1', runId: 'run-1', formats: ['py', 'md', 'html', 'ipynb', 'json'], hasCode: false })
    for (const f of ['py', 'ipynb']) {
      const item = screen.getByTestId(`export-${f}`)
      expect(item.tagName).not.toBe('A')
      expect(item.getAttribute('aria-disabled')).toBe('true')
      expect(item.getAttribute('title')).toMatch(/produced no code to export/)
      fireEvent.click(item)
    }
    expect(api.fetchExport).not.toHaveBeenCalled()
    for (const f of ['md', 'html', 'json']) {
      expect(screen.getByTestId(`export-${f}`).tagName).toBe('A')
    }
  })
})

describe('ExportMenu of a code-less run in the history', () => {
  it('offers the handout and JSON, not the script, in both the run and the session menus', async () => {
    const api = fakeApi()
    const d = codelessSession()
    api.sessions.mockResolvedValue([{ id: d.id, title: d.title, prompt: d.prompt, mode: d.mode, workdir: d.workdir, created_at: '', updated_at: '', runs: [] }])
    api.session.mockResolvedValue(d)
    const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn(), lang: 'en', saveFile: vi.fn() })
    render(<App stores={stores} />)
    fireEvent.click(await screen.findByTestId('nav-history')) // once Me has answered
    fireEvent.click(await screen.findByTestId('session'))
    await screen.findByTestId('run-view')
    const [session, run] = screen.getAllByTestId('export-menu')
    for (const menu of [session, run]) {
      expect(within(menu).getByTestId('export-py').getAttribute('aria-disabled')).toBe('true')
      expect(within(menu).getByTestId('export-ipynb').getAttribute('aria-disabled')).toBe('true')
      expect(within(menu).getByTestId('export-md').tagName).toBe('A')
    }
    // A refusal shows next to the menu that asked, not next to every menu.
    const [sessionBox, runBox] = [session.parentElement!, run.parentElement!]
    api.fetchExport!.mockRejectedValueOnce(new ApiError('export failed for a reason', 500))
    fireEvent.click(within(run).getByTestId('export-html'))
    expect((await within(runBox).findByTestId('export-error')).textContent).toContain('export failed for a reason')
    expect(within(sessionBox).queryByTestId('export-error')).toBeNull()
    act(() => stores.exports.getState().clear())
    expect(within(runBox).queryByTestId('export-error')).toBeNull()
  })
})
