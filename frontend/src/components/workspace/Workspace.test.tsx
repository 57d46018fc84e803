// @vitest-environment happy-dom
// The run form's mode switch, workspace fields and network opt-in, and how a
// workspace run shows: live, and replayed from the history.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../api'
import type { RunEvent } from '../../api'
import { fakeApi, finished, readyProvider, twoIterationRun, workspaceRun, workspaceSessionDetail, WS_DIFF, type FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'

afterEach(cleanup)

async function ready(api: FakeApi = fakeApi()) {
  const r = renderApp(api)
  await screen.findByTestId('provider-fake')
  return r
}

function checked(testId: string): boolean {
  return (screen.getByTestId(testId) as HTMLInputElement).checked
}

async function setProject(path: string) {
  fireEvent.click(screen.getByTestId('ws-project-change'))
  const input = screen.getByTestId('ws-project-input')
  fireEvent.change(input, { target: { value: path } })
  fireEvent.keyDown(input, { key: 'Enter' })
  await waitFor(() => expect(screen.getByTestId('ws-project-path').textContent).toBe(path))
}

function emitAll(api: FakeApi, events: RunEvent[]) {
  act(() => events.forEach((e) => api.events.emit(e)))
}

describe('network opt-in', () => {
  it('is off by default, sends allow_network for the one run it was ticked for, then is off again', async () => {
    const { api } = await ready()
    expect(checked('allow-network')).toBe(false)
    const box = screen.getByRole('checkbox', { name: 'Allow network for this run' })
    expect(box).toBe(screen.getByTestId('allow-network'))
    expect(document.getElementById(box.getAttribute('aria-describedby')!)!.textContent).toMatch(/can reach the internet/)
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'fetch a page' } })
    fireEvent.click(screen.getByTestId('allow-network'))
    expect(checked('allow-network')).toBe(true)
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalledTimes(1))
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ prompt: 'fetch a page', allow_network: true })
    // The form folded to one line for the run: open it to see the box.
    fireEvent.click(await screen.findByTestId('form-expand'))
    await waitFor(() => expect(checked('allow-network')).toBe(false))

    // The run view says the network was allowed (run_started records it).
    const ev = twoIterationRun('run-1')
    const started = { ...ev[0], payload: { ...ev[0].payload, allow_network: true } } as RunEvent
    emitAll(api, [started])
    const badge = screen.getByTestId('network-badge')
    expect(badge.textContent).toContain('Network allowed')
    emitAll(api, [finished('run-1', 2, 'success')])

    // The next run goes without, unless ticked again.
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalledTimes(2))
    expect(api.startRun.mock.calls[1][0]).not.toHaveProperty('allow_network')
    await screen.findByTestId('run-view')
    await waitFor(() => expect(screen.getByTestId('run-view').dataset.runId).toBe('run-2'))
    expect(screen.queryByTestId('network-badge')).toBeNull()
  })

  it('stays ticked when the run did not start, so a retry still has it', async () => {
    const api = fakeApi()
    api.startRun.mockRejectedValueOnce(new ApiError('invalid request: the prompt is empty', 400))
    await ready(api)
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'x' } })
    fireEvent.click(screen.getByTestId('allow-network'))
    fireEvent.click(screen.getByTestId('run'))
    await screen.findByTestId('start-error')
    expect(checked('allow-network')).toBe(true)
  })
})

describe('workspace mode in the run form', () => {
  it('swaps the script settings for the workspace fields and sends them', async () => {
    const { api } = await ready()
    expect(checked('mode-script')).toBe(true)
    expect(screen.queryByTestId('workspace-fields')).toBeNull()
    expect(screen.getByTestId('language')).toBeTruthy()
    fireEvent.click(screen.getByTestId('mode-workspace'))
    expect(checked('mode-workspace')).toBe(true)
    expect(screen.getByTestId('workspace-fields')).toBeTruthy()
    expect(screen.queryByTestId('language')).toBeNull()
    expect(screen.queryByTestId('reflect')).toBeNull()
    expect(screen.getByRole('radiogroup', { name: 'Mode' })).toBeTruthy()
    expect(screen.getByLabelText('Validation commands')).toBe(screen.getByTestId('ws-validate'))
    expect(screen.getByLabelText('Auditor')).toBe(screen.getByTestId('ws-auditor'))
    expect(screen.getByLabelText('Inputs (optional)')).toBe(screen.getByTestId('ws-inputs'))
    expect(screen.getByLabelText('Constraints (optional)')).toBe(screen.getByTestId('ws-constraints'))

    // No project folder yet: say so instead of starting.
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'Fix add in calc.py' } })
    expect(screen.getByTestId('ws-project-path').textContent).toBe('No folder chosen')
    fireEvent.click(screen.getByTestId('run'))
    expect(await screen.findByText(/Choose the project folder \(a git repository\) first/)).toBeTruthy()
    expect(api.startRun).not.toHaveBeenCalled()

    await setProject('/home/ana/calc')
    expect(api.setWorkdir).toHaveBeenCalledWith('/home/ana/calc')
    // The header shows the same folder.
    expect(screen.getByTestId('workdir-path').textContent).toBe('/home/ana/calc')
    fireEvent.change(screen.getByTestId('ws-validate'), { target: { value: 'python3 check.py\n\npytest -q\n' } })
    const auditor = screen.getByTestId('ws-auditor') as HTMLSelectElement
    expect([...auditor.options].map((o) => o.value)).toEqual(['', 'fake']) // none + the ready providers
    fireEvent.change(auditor, { target: { value: 'fake' } })
    fireEvent.change(screen.getByTestId('ws-inputs'), { target: { value: 'calc.py\ntests/' } })
    fireEvent.change(screen.getByTestId('ws-constraints'), { target: { value: 'Do not edit check.py' } })
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
    expect(api.startRun).toHaveBeenCalledWith({
      prompt: 'Fix add in calc.py',
      provider: 'fake',
      max_iterations: 3,
      timeout_seconds: 20,
      mode: 'workspace',
      workdir: '/home/ana/calc',
      validate: ['python3 check.py', 'pytest -q'],
      auditor: 'fake',
      task: { instructions: '', inputs: ['calc.py', 'tests/'], constraints: ['Do not edit check.py'] },
    })
    await screen.findByTestId('run-view')
  })

  it('shows why the server refused a workspace run', async () => {
    const api = fakeApi()
    api.workdir.mockResolvedValue('/home/ana/calc')
    api.startRun.mockRejectedValueOnce(new ApiError('invalid request: uncommitted changes in /home/ana/calc: a.py, b.txt', 400))
    await ready(api)
    fireEvent.click(screen.getByTestId('mode-workspace'))
    await waitFor(() => expect(screen.getByTestId('ws-project-path').textContent).toBe('/home/ana/calc'))
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'Fix it' } })
    fireEvent.click(screen.getByTestId('run'))
    const err = await screen.findByTestId('start-error')
    expect(err.textContent).toBe('The run did not start: invalid request: uncommitted changes in /home/ana/calc: a.py, b.txt')
  })

  it('sends the workspace fields with a comparison too', async () => {
    const api = fakeApi()
    api.workdir.mockResolvedValue('/home/ana/calc')
    api.providers.mockResolvedValue([readyProvider, { ...readyProvider, name: 'other', default: false }])
    await ready(api)
    fireEvent.click(screen.getByTestId('mode-workspace'))
    fireEvent.change(screen.getByTestId('ws-validate'), { target: { value: 'pytest -q' } })
    fireEvent.click(within(screen.getByTestId('provider-other')).getByRole('checkbox'))
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'Fix it' } })
    fireEvent.click(screen.getByTestId('allow-network'))
    await waitFor(() => expect(screen.getByTestId('ws-project-path').textContent).toBe('/home/ana/calc'))
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startCompare).toHaveBeenCalled())
    expect(api.startCompare.mock.calls[0][0]).toMatchObject({
      providers: ['fake', 'other'],
      mode: 'workspace',
      workdir: '/home/ana/calc',
      validate: ['pytest -q'],
      allow_network: true,
    })
    await screen.findByTestId('compare-view')
    fireEvent.click(await screen.findByTestId('form-expand'))
    expect(checked('allow-network')).toBe(false)
  })

  it('offers no re-run of one column of a workspace comparison, and says why', async () => {
    const api = fakeApi()
    api.workdir.mockResolvedValue('/home/ana/calc')
    api.providers.mockResolvedValue([readyProvider, { ...readyProvider, name: 'other', default: false }])
    const { stores } = await ready(api)
    fireEvent.click(screen.getByTestId('mode-workspace'))
    fireEvent.click(within(screen.getByTestId('provider-other')).getByRole('checkbox'))
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'Fix it' } })
    await waitFor(() => expect(screen.getByTestId('ws-project-path').textContent).toBe('/home/ana/calc'))
    fireEvent.click(screen.getByTestId('run'))
    await screen.findByTestId('compare-view')
    expect(screen.getByTestId('compare-workspace-note').textContent).toBe('Each provider works in its own git worktree and branch. To try again, start a new comparison.')
    const [first, second] = screen.getAllByTestId('compare-column')
    emitAll(api, [finished(first.dataset.runId!, 1, 'success'), finished(second.dataset.runId!, 1, 'limit_reached')])
    for (const col of [first, second]) {
      const rerun = within(col).getByTestId('rerun') as HTMLButtonElement
      expect(rerun.disabled).toBe(true)
      const why = document.getElementById(rerun.getAttribute('aria-describedby')!)!
      expect(why.textContent).toBe('Start a new comparison to try again: each provider needs a fresh worktree.')
      expect(rerun.parentElement!.getAttribute('title')).toBe(why.textContent)
      fireEvent.click(rerun)
    }
    // Not even through the store.
    expect(await stores.compare.getState().rerun('other')).toBeNull()
    expect(api.startRun).not.toHaveBeenCalled()
    // The session-wide export is a set of patches: no notebook.
    const menu = screen.getByTestId('compare-view').querySelector('.compare-actions')!
    expect(within(menu as HTMLElement).getByTestId('export-py').textContent).toBe('Patch (.patch)')
    expect(within(menu as HTMLElement).getByTestId('export-zip').textContent).toBe('All patches + summary (.zip)')
    expect(within(menu as HTMLElement).queryByTestId('export-ipynb')).toBeNull()

    // In Portuguese too.
    act(() => stores.settings.getState().setLang('pt'))
    await waitFor(() => expect(screen.getAllByTestId('rerun')[0].textContent).toBe('Executar de novo'))
    expect(screen.getAllByTestId('rerun-why')[0].textContent).toBe('Inicie uma nova comparação para tentar de novo: cada provedor precisa de uma worktree nova.')
  })

  it('knows a workspace comparison reopened from the history by its runs (their result is a patch)', async () => {
    const api = fakeApi()
    const d = workspaceSessionDetail()
    d.mode = 'compare'
    d.runs = [
      { ...d.runs![0], language: 'diff' },
      { ...d.runs![0], id: 'run-ws-b', provider: 'other', language: 'diff' },
    ]
    api.sessions.mockResolvedValue([{ id: d.id, title: d.title, prompt: d.prompt, mode: 'compare', workdir: d.workdir, created_at: d.created_at, updated_at: d.updated_at, runs: [] }])
    api.session.mockResolvedValue(d)
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-history'))
    fireEvent.click(await screen.findByTestId('session'))
    await screen.findByTestId('session-detail')
    // The session's menu and the run's menu offer the patch, no notebook.
    for (const menu of screen.getAllByTestId('export-menu')) {
      expect(within(menu).getByTestId('export-py').textContent).toBe('Patch (.patch)')
      expect(within(menu).queryByTestId('export-ipynb')).toBeNull()
    }
    // The stored run is laid out as a workspace run at once.
    expect(screen.getByTestId('mode-badge')).toBeTruthy()
    fireEvent.click(screen.getByTestId('open-comparison'))
    const cols = await screen.findAllByTestId('compare-column')
    expect(cols).toHaveLength(2)
    for (const col of cols) expect((within(col).getByTestId('rerun') as HTMLButtonElement).disabled).toBe(true)
  })
})

describe('a workspace run in the run view', () => {
  async function started(api: FakeApi = fakeApi()) {
    api.workdir.mockResolvedValue('/home/ana/calc')
    const r = await ready(api)
    fireEvent.click(screen.getByTestId('mode-workspace'))
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'Fix add in calc.py' } })
    await waitFor(() => expect(screen.getByTestId('ws-project-path').textContent).toBe('/home/ana/calc'))
    fireEvent.click(screen.getByTestId('run'))
    await screen.findByTestId('run-view')
    return r
  }

  it('shows the tool calls, each validation, the audit and the commit', async () => {
    const { api } = await started()
    const ev = workspaceRun('run-1', { allowNetwork: true })
    emitAll(api, ev.slice(0, 5)) // … the first two tool calls
    expect(screen.getByTestId('mode-badge').textContent).toBe('Workspace')
    expect(screen.getByTestId('network-badge')).toBeTruthy()
    expect(screen.getByTestId('ws-workdir').textContent).toBe('/home/ana/calc')
    expect(screen.getByTestId('ws-checks').textContent).toBe('python3 check.py')
    expect(screen.getByTestId('ws-branch').textContent).toBe('loopforge/fix-add-in-calc-py-1a2b3c4d')
    expect(screen.getByText(/Working on branch/)).toBeTruthy()
    // No script panels in workspace mode.
    expect(screen.queryByTestId('exec')).toBeNull()
    expect(screen.queryByTestId('code')).toBeNull()
    const calls = screen.getAllByTestId('tool-call')
    expect(calls.map((c) => [c.dataset.name, c.dataset.ok])).toEqual([
      ['read_file', 'false'],
      ['write_file', 'true'],
    ])
    expect(within(calls[0]).getByTestId('tool-args').textContent).toBe('missing.py')
    expect(within(calls[1]).getByTestId('tool-args').textContent).toBe('calc.py, content: 3 lines')
    expect(within(calls[0]).getByTestId('tool-output').textContent).toContain('no such file or directory')
    // Expanded, the arguments are shown verbatim (the file as written).
    expect(calls[1].querySelector('.tool-args > div:last-child pre')?.textContent).toBe('def add(a, b):\n    return a * b\n')

    emitAll(api, ev.slice(5, 7)) // token, generated: the commands run next
    expect(screen.getByTestId('iteration-chip').dataset.phase).toBe('validating')
    expect(screen.getByTestId('validation').textContent).toContain('Running the validation commands…')

    emitAll(api, ev.slice(7, 9)) // validated (failed), iteration_done
    let check = screen.getByTestId('validation-command')
    expect(check.dataset.passed).toBe('false')
    expect(check.dataset.exitCode).toBe('1')
    expect(within(check).getByTestId('validation-verdict').textContent).toBe('✕ failed')
    expect(check.textContent).toContain('$ python3 check.py')
    expect(check.querySelector('details')!.open).toBe(true) // a failure shows its output at once
    expect(within(check).getByTestId('validation-stderr').textContent).toBe('AssertionError: add(2, 3) returned 6\n')
    expect(screen.getByTestId('validation-summary').textContent).toBe('0/1 checks')
    const chip = screen.getByTestId('iteration-chip')
    expect(chip.dataset.phase).toBe('error')
    expect(within(chip).getByTestId('chip-checks').textContent).toBe('0/1')
    // Only a change that passed validation is reviewed.
    expect(screen.getByTestId('audit').textContent).toContain('Not reviewed')

    emitAll(api, ev.slice(9, 14)) // iteration 2 … the auditor's first token
    expect(screen.getAllByTestId('iteration-chip')[1].dataset.phase).toBe('auditing')
    expect(screen.getByTestId('audit').textContent).toContain('The auditor is reviewing the change…')
    expect(screen.getByTestId('stream-generation').textContent).not.toContain('approved')

    emitAll(api, ev.slice(14))
    expect(screen.getByTestId('run-banner').dataset.status).toBe('success')
    expect(screen.getAllByTestId('iteration-chip').map((c) => [c.dataset.phase, within(c).getByTestId('chip-checks').textContent])).toEqual([
      ['error', '0/1'],
      ['success', '1/1'],
    ])
    check = screen.getByTestId('validation-command')
    expect(check.dataset.passed).toBe('true')
    expect(check.querySelector('details')!.open).toBe(false)
    expect(within(check).getByTestId('validation-stdout').textContent).toBe('ok\n')
    expect(screen.getByTestId('audit').dataset.approved).toBe('true')
    expect(screen.getByTestId('audit-verdict').textContent).toBe('✓ Approved by the auditor')
    expect(within(screen.getByTestId('audit-reasons')).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'add now returns the sum',
      'the tests are unchanged',
    ])
    const commit = screen.getByTestId('git-commit')
    expect(commit.dataset.commit).toBe('9f8e7d6c5b4a39281706f5e4d3c2b1a098765432')
    expect(commit.textContent).toContain('Committed 9f8e7d6 on loopforge/fix-add-in-calc-py-1a2b3c4d')
    expect(commit.textContent).toContain('loopforge: Fix add in calc.py')
    expect(screen.queryByText(/Working on branch/)).toBeNull()
    expect(screen.getByTestId('ws-metadata').textContent).toBe('.loopforge/runs/20261121T100000Z.json')
    const diff = [...screen.getByTestId('ws-diff').querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n')
    expect(diff).toBe(WS_DIFF.trimEnd())
  })

  it('says the changes were left uncommitted when the run fails', async () => {
    const { api } = await started()
    const ev = workspaceRun('run-1').slice(0, 9) // iteration 1, failed
    emitAll(api, [
      ...ev,
      { type: 'git', run_id: 'run-1', seq: 10, ts: '', payload: { action: 'uncommitted', branch: 'loopforge/fix-add-in-calc-py-1a2b3c4d', message: 'no commit' } },
      finished('run-1', 11, 'limit_reached'),
    ])
    expect(screen.getByTestId('run-banner').dataset.status).toBe('limit_reached')
    expect(screen.getByTestId('git-uncommitted').querySelector('.git-head')!.textContent).toBe(
      'Changes left uncommitted on branch loopforge/fix-add-in-calc-py-1a2b3c4d for inspection.',
    )
    expect(screen.queryByTestId('git-commit')).toBeNull()
  })
})

describe('a workspace session in the history', () => {
  async function openWorkspaceSession(api: FakeApi) {
    const d = workspaceSessionDetail()
    api.sessions.mockResolvedValue([
      { id: d.id, title: d.title, prompt: d.prompt, mode: 'workspace', kind: 'workspace', workdir: d.workdir, created_at: d.created_at, updated_at: d.updated_at, runs: [{ id: 'run-ws', provider: 'fake', status: 'success', iterations: 2 }] },
    ])
    api.session.mockResolvedValue(d)
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-history'))
    fireEvent.click(await screen.findByTestId('session'))
    await screen.findByTestId('session-detail')
  }

  it('replays the run from its stored events, with its validations, audit and commit', async () => {
    const api = fakeApi()
    await openWorkspaceSession(api)
    // The stored copy shows at once, laid out as a workspace run.
    expect(screen.getByTestId('mode-badge')).toBeTruthy()
    expect(screen.queryByTestId('exec')).toBeNull()
    expect(api.events.subscribed).toEqual([{ runId: 'run-ws', after: 0 }])
    emitAll(api, workspaceRun('run-ws'))
    expect(screen.getByTestId('replay-step').textContent).toBe('Step 1 of 2')
    expect(screen.getByTestId('validation-command').dataset.passed).toBe('false')
    expect(screen.getAllByTestId('tool-call')).toHaveLength(2)
    fireEvent.click(screen.getByTestId('step-next'))
    expect(screen.getByTestId('validation-command').dataset.passed).toBe('true')
    expect(screen.getByTestId('audit-verdict').textContent).toBe('✓ Approved by the auditor')
    expect(screen.getByTestId('git-commit').textContent).toContain('9f8e7d6')
  })

  it('continues in workspace mode, in its project, with its checks and auditor, without the network opt-in', async () => {
    const api = fakeApi()
    await openWorkspaceSession(api)
    emitAll(api, workspaceRun('run-ws'))
    fireEvent.change(screen.getByTestId('follow-up'), { target: { value: 'Now add sub too' } })
    fireEvent.click(screen.getByTestId('continue'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
    const req = api.startRun.mock.calls[0][0]
    expect(req).toMatchObject({
      session_id: 'sess-ws',
      prompt: 'Now add sub too',
      provider: 'fake',
      mode: 'workspace',
      workdir: '/home/ana/calc',
      validate: ['python3 check.py'],
      auditor: 'fake',
    })
    expect(req).not.toHaveProperty('allow_network')
    expect(req).not.toHaveProperty('language')
  })
})
