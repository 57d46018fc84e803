// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ComparisonRow, SessionDetail } from '../../api'
import { fakeApi, finished, readyProvider, sessionDetail, workspaceRun, workspaceSessionDetail, type FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'

afterEach(cleanup)

const two = [readyProvider, { ...readyProvider, name: 'other', model: 'other-model', default: false }]

function row(p: Partial<ComparisonRow>): ComparisonRow {
  return {
    run_id: 'x',
    provider: 'fake',
    model: 'm',
    status: 'success',
    iterations: 1,
    iterations_to_success: 1,
    wall_ms: 1000,
    first_token_ms: 100,
    input_tokens: 100,
    output_tokens: 50,
    cost_usd: 0,
    lines_of_code: 2,
    final_exit_code: 0,
    ...p,
  }
}

async function readyTwo() {
  const api = fakeApi()
  api.providers.mockResolvedValue(two)
  const r = renderApp(api)
  await screen.findByTestId('provider-other')
  return r
}

describe('comparison', () => {
  it('ticking two providers starts a comparison with one column each; cancel one, then the table', async () => {
    const { api } = await readyTwo()
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'fizzbuzz' } })
    fireEvent.click(within(screen.getByTestId('provider-other')).getByRole('checkbox'))
    expect(screen.getByTestId('run').textContent).toBe('Compare 2')
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startCompare).toHaveBeenCalled())
    expect(api.startCompare.mock.calls[0][0]).toMatchObject({ prompt: 'fizzbuzz', providers: ['fake', 'other'], max_iterations: 3 })
    expect(api.startRun).not.toHaveBeenCalled()
    const cols = await screen.findAllByTestId('compare-column')
    expect(cols.map((c) => c.dataset.provider)).toEqual(['fake', 'other'])
    expect(within(cols[0]).getByTestId('run-view')).toBeTruthy()

    // Cancel one column: only that run is cancelled.
    fireEvent.click(within(cols[1]).getByTestId('cancel-column'))
    await waitFor(() => expect(api.cancelRun).toHaveBeenCalledWith('cmp-1-r2'))
    expect(api.cancelRun).toHaveBeenCalledTimes(1)

    api.comparison.mockResolvedValue([
      row({ run_id: 'cmp-1-r1', provider: 'fake', wall_ms: 1200 }),
      row({ run_id: 'cmp-1-r2', provider: 'other', status: 'cancelled', iterations_to_success: null, wall_ms: 3000, final_exit_code: null }),
    ])
    act(() => {
      api.events.emit(finished('cmp-1-r2', 1, 'cancelled'))
    })
    expect(api.comparison).not.toHaveBeenCalled()
    act(() => {
      api.events.emit(finished('cmp-1-r1', 1, 'success'))
    })
    await waitFor(() => expect(api.comparison).toHaveBeenCalledWith('cmp-1'))
    const rows = await screen.findAllByTestId('comparison-row')
    expect(rows.map((r) => r.dataset.status)).toEqual(['success', 'cancelled'])
    const wall = rows[0].querySelector('[data-col=wall_ms]')!
    expect(wall.textContent).toBe('1.2 s')
    expect(wall.classList.contains('best')).toBe(true)
    expect(rows[1].querySelector('[data-col=iterations_to_success]')!.textContent).toBe('—')
    expect(screen.getByTestId('compare-chart')).toBeTruthy()
    expect(screen.getByTestId('script-diff')).toBeTruthy()
  })

  it('re-runs one provider in a fresh thread of the session', async () => {
    const { api } = await readyTwo()
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'fizzbuzz' } })
    fireEvent.click(within(screen.getByTestId('provider-other')).getByRole('checkbox'))
    fireEvent.click(screen.getByTestId('allow-network'))
    fireEvent.click(screen.getByTestId('run'))
    await screen.findAllByTestId('compare-column')
    act(() => {
      api.events.emit(finished('cmp-1-r1', 1, 'success'))
      api.events.emit(finished('cmp-1-r2', 1, 'error'))
    })
    const cols = screen.getAllByTestId('compare-column')
    fireEvent.click(within(cols[1]).getByTestId('rerun'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ session_id: 'cmp-1', provider: 'other', fresh: true, prompt: 'fizzbuzz' })
    // A re-run is a new run: the network opt-in of the comparison does not carry over.
    expect(api.startCompare.mock.calls[0][0]).toMatchObject({ allow_network: true })
    expect(api.startRun.mock.calls[0][0]).not.toHaveProperty('allow_network')
    // A script comparison has no worktrees: no note about them.
    expect(screen.queryByTestId('compare-workspace-note')).toBeNull()
    await waitFor(() => expect(screen.getAllByTestId('compare-column')[1].dataset.runId).toBe('run-2'))
  })

  it('shows why a comparison did not start', async () => {
    const { api } = await readyTwo()
    api.startCompare.mockRejectedValueOnce(new Error('provider "other": no API key'))
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'x' } })
    fireEvent.click(within(screen.getByTestId('provider-other')).getByRole('checkbox'))
    fireEvent.click(screen.getByTestId('run'))
    expect((await screen.findByTestId('compare-error')).textContent).toContain('no API key')
  })

  it('opens a comparison session from the history', async () => {
    const api = fakeApi()
    const d: SessionDetail = sessionDetail()
    d.mode = 'compare'
    d.runs = [d.runs![0], { ...d.runs![0], id: 'run-b', provider: 'other', prompt: 'Print a greeting' }]
    api.sessions.mockResolvedValue([{ id: 'sess-1', title: 't', prompt: 'p', mode: 'compare', workdir: '', created_at: '', updated_at: '', runs: [] }])
    api.session.mockResolvedValue(d)
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-history'))
    fireEvent.click(await screen.findByTestId('session'))
    fireEvent.click(await screen.findByTestId('open-comparison'))
    const cols = await screen.findAllByTestId('compare-column')
    expect(cols.map((c) => c.dataset.runId)).toEqual(['run-old', 'run-b'])
    await waitFor(() => expect(api.comparison).toHaveBeenCalledWith('sess-1'))
  })
})

describe('export menu', () => {
  it('offers downloads of a finished run in the browser', async () => {
    const api = fakeApi()
    api.sessions.mockResolvedValue([{ id: 'sess-1', title: 't', prompt: 'p', mode: 'script', workdir: '', created_at: '', updated_at: '', runs: [] }])
    api.session.mockResolvedValue(sessionDetail())
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-history'))
    fireEvent.click(await screen.findByTestId('session'))
    const view = await screen.findByTestId('run-view')
    const py = within(view).getByTestId('export-py') as HTMLAnchorElement
    expect(py.getAttribute('href')).toBe('/api/sessions/sess-1/export?format=py&run=run-old&lang=en')
    expect(py.hasAttribute('download')).toBe(true)
    // The session-wide menu has the zip too.
    const all = screen.getAllByTestId('export-zip') as HTMLAnchorElement[]
    expect(all[0].getAttribute('href')).toBe('/api/sessions/sess-1/export?format=zip&lang=en')
  })

  it('uses the save dialog on the desktop and shows the saved path', async () => {
    const api = fakeApi('desktop')
    api.sessions.mockResolvedValue([{ id: 'sess-1', title: 't', prompt: 'p', mode: 'script', workdir: '', created_at: '', updated_at: '', runs: [] }])
    api.session.mockResolvedValue(sessionDetail())
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-history'))
    fireEvent.click(await screen.findByTestId('session'))
    const view = await screen.findByTestId('run-view')
    fireEvent.click(within(view).getByTestId('export-py'))
    await waitFor(() => expect(api.saveExport).toHaveBeenCalledWith('sess-1', 'py', 'run-old', 'en', expect.any(String)))
    expect((await screen.findAllByTestId('export-saved'))[0].textContent).toBe('Saved to /home/me/saved.py')
  })
})

describe('export menu of a workspace run', () => {
  function labels(menu: HTMLElement): string[] {
    return within(menu)
      .getAllByRole('menuitem')
      .map((e) => e.textContent ?? '')
  }

  async function openHistory(api: FakeApi, d: SessionDetail) {
    api.sessions.mockResolvedValue([{ id: d.id, title: d.title, prompt: d.prompt, mode: d.mode, workdir: d.workdir, created_at: '', updated_at: '', runs: [] }])
    api.session.mockResolvedValue(d)
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-history'))
    fireEvent.click(await screen.findByTestId('session'))
    await screen.findByTestId('run-view')
  }

  it('a script run keeps the Python script and the notebook', async () => {
    const api = fakeApi()
    await openHistory(api, sessionDetail())
    const [session, run] = screen.getAllByTestId('export-menu')
    expect(labels(session)).toEqual(['Python script (.py)', 'All scripts + summary (.zip)', 'Handout (Markdown)', 'Handout (HTML)', 'Jupyter notebook', 'Session (JSON)'])
    expect(labels(run)).toEqual(['Python script (.py)', 'Handout (Markdown)', 'Handout (HTML)', 'Jupyter notebook', 'Session (JSON)'])
  })

  it('a workspace session offers its patch (still format py) and no notebook, in the run and the session menus', async () => {
    const api = fakeApi()
    await openHistory(api, workspaceSessionDetail())
    const [session, run] = screen.getAllByTestId('export-menu')
    expect(labels(session)).toEqual(['Patch (.patch)', 'All patches + summary (.zip)', 'Handout (Markdown)', 'Handout (HTML)', 'Session (JSON)'])
    expect(labels(run)).toEqual(['Patch (.patch)', 'Handout (Markdown)', 'Handout (HTML)', 'Session (JSON)'])
    expect(within(run).getByTestId('export-py').getAttribute('href')).toBe('/api/sessions/sess-ws/export?format=py&run=run-ws&lang=en')
    expect(within(session).queryByTestId('export-ipynb')).toBeNull()
  })

  it('says Patch in Portuguese too', async () => {
    const api = fakeApi()
    const d = workspaceSessionDetail()
    api.sessions.mockResolvedValue([{ id: d.id, title: d.title, prompt: d.prompt, mode: d.mode, workdir: d.workdir, created_at: '', updated_at: '', runs: [] }])
    api.session.mockResolvedValue(d)
    const { stores } = renderApp(api)
    act(() => stores.settings.getState().setLang('pt'))
    fireEvent.click(screen.getByTestId('nav-history'))
    fireEvent.click(await screen.findByTestId('session'))
    await screen.findByTestId('run-view')
    const [session] = screen.getAllByTestId('export-menu')
    expect(labels(session)).toEqual(['Patch (.patch)', 'Todos os patches + resumo (.zip)', 'Apostila (Markdown)', 'Apostila (HTML)', 'Sessão (JSON)'])
  })

  it('on the desktop the Patch entry saves format py', async () => {
    const api = fakeApi('desktop')
    api.saveExport!.mockResolvedValue('/home/me/fix-add-in-calc-py-fake.patch')
    await openHistory(api, workspaceSessionDetail())
    const view = screen.getByTestId('run-view')
    const patch = within(view).getByTestId('export-py')
    expect(patch.textContent).toBe('Patch (.patch)')
    fireEvent.click(patch)
    await waitFor(() => expect(api.saveExport).toHaveBeenCalledWith('sess-ws', 'py', 'run-ws', 'en', expect.any(String)))
    expect((await screen.findAllByTestId('export-saved'))[0].textContent).toBe('Saved to /home/me/fix-add-in-calc-py-fake.patch')
  })

  it('a live workspace run (mode from the form, then run_started) offers its patch once finished', async () => {
    const api = fakeApi()
    api.workdir.mockResolvedValue('/home/ana/calc')
    renderApp(api)
    await screen.findByTestId('provider-fake')
    fireEvent.click(screen.getByTestId('mode-workspace'))
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'Fix add in calc.py' } })
    await waitFor(() => expect(screen.getByTestId('ws-project-path').textContent).toBe('/home/ana/calc'))
    fireEvent.click(screen.getByTestId('run'))
    await screen.findByTestId('run-view')
    act(() => workspaceRun('run-1').forEach((e) => api.events.emit(e)))
    const menu = within(screen.getByTestId('run-view')).getByTestId('export-menu')
    expect(labels(menu)).toEqual(['Patch (.patch)', 'Handout (Markdown)', 'Handout (HTML)', 'Session (JSON)'])
  })
})

describe('stats view', () => {
  it('shows a row per provider/model and the total', async () => {
    const api = fakeApi()
    const g = { runs: 4, successes: 3, failures: 1, cancelled: 0, exec_timeouts: 0, success_rate: 0.75, avg_duration_ms: 2000, median_duration_ms: 1500, avg_iterations_to_success: 1.5, input_tokens: 1000, output_tokens: 300, cost_usd: 0 }
    api.stats.mockResolvedValue({ total: g, groups: [{ ...g, provider: 'fake', model: 'fake-model' }] })
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-stats'))
    const r = await screen.findByTestId('stats-row')
    expect(r.dataset.provider).toBe('fake')
    expect(r.querySelector('[data-col=success_rate]')!.textContent).toBe('75%')
    expect(screen.getByTestId('stats-total').querySelector('[data-col=runs]')!.textContent).toBe('4')
    expect(screen.getByTestId('stats-chart')).toBeTruthy()
  })
})

describe('language', () => {
  it('switches the visible labels to Portuguese and remembers it', async () => {
    const { stores } = renderApp()
    await screen.findByTestId('provider-fake')
    expect(screen.getByTestId('nav-history').textContent).toBe('History')
    fireEvent.click(screen.getByTestId('lang-pt'))
    await waitFor(() => expect(screen.getByTestId('nav-history').textContent).toBe('Histórico'))
    expect(screen.getByTestId('run').textContent).toBe('Executar')
    expect(stores.settings.getState().lang).toBe('pt')
    fireEvent.click(screen.getByTestId('lang-en'))
    await waitFor(() => expect(screen.getByTestId('nav-history').textContent).toBe('History'))
  })
})
