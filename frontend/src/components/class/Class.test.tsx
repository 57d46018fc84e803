// @vitest-environment happy-dom
// The classroom faces over a fake Api: the join page, the student's limited
// app (assignment, pause, queue position, quota refusals) and the
// instructor's Class tab (join info, live wall, a student's run with Stop
// and Spotlight, the stage, pause, assignment, limits, export, remove).
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../api'
import type { Me } from '../../api/gen/wire'
import { fakeApi, twoIterationRun, type FakeApi } from '../../test/fakeApi'
import { classView, fakeClass, instructorClass, wallEntry } from '../../test/fakeClass'
import { renderApp } from '../../test/render'
import { create } from 'qrcode'

beforeEach(() => window.history.replaceState(null, '', '/'))
afterEach(() => {
  cleanup()
  window.history.replaceState(null, '', '/')
})

const student = (patch = {}): Me => ({ role: 'student', student_id: 'st-1', name: 'Ana', class: classView(patch) })
const instructor = (patch = {}): Me => ({ role: 'instructor', class: instructorClass(patch) })

function asStudent(patch = {}, api: FakeApi = fakeApi()) {
  const ops = fakeClass(api, student(patch))
  const r = renderApp(api, { me: null })
  return { ...r, ops }
}

async function studentReady(patch = {}, api?: FakeApi) {
  const r = asStudent(patch, api)
  await screen.findByTestId('provider-fake')
  await screen.findByTestId('student-badge')
  return r
}

describe('the join page', () => {
  beforeEach(() => window.history.replaceState(null, '', '/join?code=k7qx2m'))

  it('takes the code from the link, refuses a bad name, shows the server’s refusal, then opens the student app', async () => {
    const api = fakeApi()
    fakeClass(api, student())
    api.call.mockRejectedValueOnce(new ApiError('missing or wrong token', 401)) // no cookie yet
    renderApp(api, { me: null })
    const code = (await screen.findByTestId('join-code-input')) as HTMLInputElement
    expect(code.value).toBe('K7Q-X2M')
    fireEvent.click(screen.getByTestId('join-submit'))
    expect(await screen.findByText('Type your name.')).toBeTruthy()
    expect(api.joinClass).not.toHaveBeenCalled()

    api.joinClass!.mockRejectedValueOnce(new ApiError('wrong class code', 403))
    fireEvent.change(screen.getByTestId('join-name'), { target: { value: ' Ana ' } })
    fireEvent.click(screen.getByTestId('join-submit'))
    expect((await screen.findByTestId('join-error')).textContent).toContain('wrong class code')

    api.joinClass!.mockRejectedValueOnce(new ApiError('too many attempts: wait a minute', 429, undefined, undefined, 60))
    fireEvent.click(screen.getByTestId('join-submit'))
    await waitFor(() => expect(screen.getByTestId('join-error').textContent).toContain('too many attempts'))
    expect(screen.getByTestId('join-error').textContent).toMatch(/try again at \d/)

    api.joinClass!.mockResolvedValueOnce(student())
    fireEvent.click(screen.getByTestId('join-submit'))
    await screen.findByTestId('student-badge')
    expect(api.joinClass).toHaveBeenLastCalledWith({ code: 'K7QX2M', name: 'Ana' })
    expect(window.location.pathname).toBe('/')
  })

  it('a student who already joined goes straight to their app', async () => {
    asStudent()
    await screen.findByTestId('student-badge')
    expect(screen.queryByTestId('join-page')).toBeNull()
  })
})

describe('the student app', () => {
  it('is the run form without Stats, folder, workspace mode or network opt-in; History is theirs', async () => {
    await studentReady()
    expect(screen.getByTestId('student-badge').textContent).toContain('Ana')
    expect(screen.getByTestId('student-badge').textContent).toContain('Turma A')
    expect(screen.queryByTestId('nav-stats')).toBeNull()
    expect(screen.queryByTestId('nav-class')).toBeNull()
    expect(screen.getByTestId('nav-history')).toBeTruthy()
    expect(screen.queryByTestId('mode')).toBeNull()
    expect(screen.queryByTestId('allow-network')).toBeNull()
    expect(document.querySelector('.workdir')).toBeNull()
  })

  it('offers workspace mode (no folder picker) when the instructor gives scratch folders', async () => {
    await studentReady({ limits: { ...classView().limits, scratch_workspace: true } })
    fireEvent.click(screen.getByTestId('mode-workspace'))
    expect(screen.getByTestId('workspace-fields')).toBeTruthy()
    expect(screen.queryByTestId('ws-project-path')).toBeNull()
  })

  it('the assignment fills the form; a new one while the student typed asks first', async () => {
    const { api } = await studentReady({ assignment: { title: 'Ex 1', prompt: 'Sort a list', max_iterations: 4 } })
    expect(screen.getByTestId('prompt')).toHaveProperty('value', 'Sort a list')
    expect(screen.getByTestId('max-iterations')).toHaveProperty('value', '4')
    expect(screen.getByTestId('assignment-banner').textContent).toContain('Ex 1')

    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'my own idea' } })
    act(() => api.events.emitClass({ type: 'class_state', payload: classView({ assignment: { title: 'Ex 2', prompt: 'Reverse a string' } }) }))
    expect(await screen.findByTestId('assignment-ask')).toBeTruthy()
    expect(screen.getByTestId('prompt')).toHaveProperty('value', 'my own idea')
    fireEvent.click(screen.getByTestId('assignment-replace'))
    expect(screen.getByTestId('prompt')).toHaveProperty('value', 'Reverse a string')
    expect(screen.queryByTestId('assignment-ask')).toBeNull()
  })

  it('a prompt problem: the statement and visible tests shown, the prompt left to the student, no Tests panel or refill', async () => {
    const api = fakeApi()
    await studentReady(
      { assignment: { title: 'Soma', prompt: 'Read two integers, print their sum.', prompt_only: true, tests: 'tests:\n  - {stdin: 2 3, expected: "5"}\n', hidden_tests: 2 } },
      api,
    )
    expect(screen.getByTestId('assignment-statement').textContent).toBe('Read two integers, print their sum.')
    expect(screen.getByTestId('assignment-judged').textContent).toBe('Judged by 3 tests (2 hidden: you see only their verdicts)')
    expect(screen.getByTestId('assignment-visible-tests').textContent).toContain('2 3')
    expect(screen.getByTestId('prompt')).toHaveProperty('value', '')
    expect(screen.queryByTestId('tests-field')).toBeNull()
    expect(screen.queryByTestId('assignment-refill')).toBeNull()
    // The run goes without tests of the student's own: the server puts the assignment's on it.
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'add the two numbers' } })
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ prompt: 'add the two numbers' })
    expect(api.startRun.mock.calls[0][0].tests).toBeUndefined()
  })

  it('paused: the banner says so and Run is off until the instructor resumes', async () => {
    const { api } = await studentReady()
    expect(screen.getByTestId('run')).toHaveProperty('disabled', false)
    act(() => api.events.emitClass({ type: 'class_state', payload: classView({ paused: true }) }))
    expect((await screen.findByTestId('class-paused')).textContent).toContain('Paused by the instructor')
    expect(screen.getByTestId('run')).toHaveProperty('disabled', true)
    act(() => api.events.emitClass({ type: 'class_state', payload: classView({ paused: false }) }))
    await waitFor(() => expect(screen.getByTestId('run')).toHaveProperty('disabled', false))
    expect(screen.queryByTestId('class-paused')).toBeNull()
  })

  it('a quota refusal is shown as the server words it; the usage line names the limits set', async () => {
    const api = fakeApi()
    api.startRun.mockRejectedValueOnce(new ApiError('You already have 2 runs going (the limit is 2)', 429))
    await studentReady(
      { limits: { ...classView().limits, concurrent_runs: 2, runs_per_hour: 20 }, usage: { runs: 5, running_runs: 2, runs_last_hour: 5, tokens: 0, cost_usd: 0 } },
      api,
    )
    expect(screen.getByTestId('student-usage').textContent).toContain('2 of 2 runs going')
    expect(screen.getByTestId('student-usage').textContent).toContain('5 of 20 runs this hour')
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'hello' } })
    fireEvent.click(screen.getByTestId('run'))
    expect((await screen.findByTestId('start-error')).textContent).toContain('You already have 2 runs going (the limit is 2)')
  })

  it('shows the sandbox queue: "N ahead of you", gone once the code runs', async () => {
    const { api } = await studentReady()
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'hello' } })
    fireEvent.click(screen.getByTestId('run'))
    await screen.findByTestId('run-view')
    const [started, iter] = twoIterationRun('run-1')
    act(() => {
      api.events.emit(started)
      api.events.emit(iter)
      api.events.emit({ type: 'queued', run_id: 'run-1', seq: 3, ts: '2026-11-21T10:00:01Z', payload: { iteration: 1, ahead: 3 } })
    })
    expect((await screen.findByTestId('queue-notice')).textContent).toBe(' Waiting for a sandbox: 3 ahead of you')
    act(() => api.events.emit({ type: 'queued', run_id: 'run-1', seq: 4, ts: '2026-11-21T10:00:02Z', payload: { iteration: 1, ahead: 1 } }))
    await waitFor(() => expect(screen.getByTestId('queue-notice').textContent).toContain('1 ahead of you'))
    act(() => api.events.emit({ type: 'exec_started', run_id: 'run-1', seq: 5, ts: '2026-11-21T10:00:03Z', payload: { iteration: 1 } }))
    await waitFor(() => expect(screen.queryByTestId('queue-notice')).toBeNull())
  })

  it('tells the wait the server estimates: "about 5 s", none before there is one', async () => {
    const { api } = await studentReady()
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'hello' } })
    fireEvent.click(screen.getByTestId('run'))
    await screen.findByTestId('run-view')
    const [started, iter] = twoIterationRun('run-1')
    act(() => {
      api.events.emit(started)
      api.events.emit(iter)
      api.events.emit({ type: 'queued', run_id: 'run-1', seq: 3, ts: '2026-11-21T10:00:01Z', payload: { iteration: 1, ahead: 4 } })
    })
    expect((await screen.findByTestId('queue-notice')).textContent).toBe(' Waiting for a sandbox: 4 ahead of you')
    act(() => api.events.emit({ type: 'queued', run_id: 'run-1', seq: 4, ts: '2026-11-21T10:00:02Z', payload: { iteration: 1, ahead: 3, wait_ms: 4200 } }))
    await waitFor(() => expect(screen.getByTestId('queue-notice').textContent).toBe(' Waiting for a sandbox: 3 ahead of you (about 5 s)'))
  })

  it('the usage line counts what the budget counts, held tokens included', async () => {
    await studentReady({
      limits: { ...classView().limits, tokens_per_student: 150000 },
      usage: { runs: 5, running_runs: 1, runs_last_hour: 5, tokens: 90000, cost_usd: 0, budget_tokens: 30000, budget_held: 25000, budget_cost_usd: 0 },
    })
    expect(screen.getByTestId('student-usage').textContent).toContain('55k of 150k tokens')
  })

  it('a student removed by the instructor is told so when the connection drops', async () => {
    const { api } = await studentReady()
    api.call.mockRejectedValue(new ApiError('removed from the class', 401))
    act(() => api.events.setState({ status: 'reconnecting', attempt: 1, retryInMs: 300, reason: 'connection lost (code 1006)' }))
    expect((await screen.findByTestId('gate')).textContent).toContain('The instructor removed you from the class.')
  })
})

describe('the instructor’s Class tab', () => {
  async function instructorReady(patch = {}, wall = [wallEntry('Ana', { iteration: 2 }), wallEntry('Bia', null), wallEntry('Caio', { status: 'success', ended_at: new Date().toISOString() })]) {
    const api = fakeApi()
    const ops = fakeClass(api, instructor(patch), wall)
    const r = renderApp(api, { me: null })
    await screen.findByTestId('class-tab')
    await waitFor(() => expect(screen.getAllByTestId('wall-card')).toHaveLength(wall.length))
    return { ...r, ops }
  }

  it('opens first, with the join address, the code large and a QR code of the join link with the code', async () => {
    await instructorReady()
    expect(screen.getByTestId('nav-class').getAttribute('aria-current')).toBe('page')
    expect(screen.getByTestId('nav-stats')).toBeTruthy()
    expect(screen.getByTestId('join-url').textContent).toBe('http://192.168.1.20:8765/join')
    expect(screen.getByTestId('join-code').textContent).toBe('K7Q-X2M')
    const qr = screen.getByTestId('qr')
    expect(qr.getAttribute('data-text')).toBe('http://192.168.1.20:8765/join?code=K7QX2M')
    // The drawing is that text's QR code: as many modules as its symbol, the finder pattern's corner dark.
    const size = create('http://192.168.1.20:8765/join?code=K7QX2M', { errorCorrectionLevel: 'M' }).modules.size
    expect(qr.getAttribute('viewBox')).toBe(`0 0 ${size + 4} ${size + 4}`)
    expect(qr.querySelector('path')!.getAttribute('d')).toMatch(/^M2 2h1v1h-1z/)
  })

  it('the wall lives on the stream: a line changes, a student joins, counts follow — without asking the server again', async () => {
    const { api, ops } = await instructorReady()
    const card = (name: string) => screen.getAllByTestId('wall-card').find((c) => c.getAttribute('data-student') === name)!
    expect(card('Ana').getAttribute('data-state')).toBe('running')
    expect(card('Ana').textContent).toContain('iteration 2/3')
    expect(card('Bia').textContent).toContain('No run yet')
    expect(card('Caio').getAttribute('data-state')).toBe('success')
    expect(screen.getByTestId('class-counts').textContent).toContain('3 students')
    act(() => api.events.emitClass({ type: 'wall', payload: wallEntry('Ana', { iteration: 3, queue_position: 2 }) }))
    await waitFor(() => expect(card('Ana').textContent).toContain('iteration 3/3'))
    expect(card('Ana').getAttribute('data-state')).toBe('queued')
    expect(within(card('Ana')).getByTestId('wall-queue').textContent).toBe('2 ahead')
    act(() => api.events.emitClass({ type: 'wall', payload: wallEntry('Duda', { iteration: 1 }) }))
    await waitFor(() => expect(screen.getAllByTestId('wall-card')).toHaveLength(4))
    expect(screen.getByTestId('class-counts').textContent).toContain('4 students')
    expect(ops.Wall).toHaveBeenCalledTimes(1)
  })

  it('a card opens that student’s run: Stop cancels it, Spotlight puts it on the stage', async () => {
    const { api, ops } = await instructorReady()
    fireEvent.click(screen.getAllByTestId('wall-card').find((c) => c.getAttribute('data-student') === 'Ana')!)
    const pane = await screen.findByTestId('student-pane')
    expect(pane.getAttribute('data-student')).toBe('Ana')
    expect(api.events.subscribed).toContainEqual({ runId: 'run-Ana', after: 0 })
    const events = twoIterationRun('run-Ana')
    act(() => events.slice(0, 6).forEach((e) => api.events.emit(e)))
    await waitFor(() => expect(within(pane).getByTestId('run-view').getAttribute('data-run-id')).toBe('run-Ana'))
    fireEvent.click(within(pane).getByTestId('student-stop'))
    await waitFor(() => expect(api.cancelRun).toHaveBeenCalledWith('run-Ana'))

    fireEvent.click(within(pane).getByTestId('spotlight'))
    await waitFor(() => expect(ops.SetSpotlight).toHaveBeenCalledWith({ run_id: 'run-Ana' }))
    const stage = await screen.findByTestId('stage-pane')
    expect(stage.getAttribute('data-spotlight')).toBe('run-Ana')
    expect(within(stage).getByTestId('stage-who').textContent).toContain('Ana')
    expect(within(stage).getByTestId('run-view').className).toContain('run-stage')
    fireEvent.click(within(stage).getByTestId('stage-back'))
    expect((await screen.findByTestId('spot-bar')).textContent).toContain('Ana')
    fireEvent.click(screen.getByTestId('clear-stage'))
    await waitFor(() => expect(ops.SetSpotlight).toHaveBeenLastCalledWith({ run_id: '' }))
    await waitFor(() => expect(screen.queryByTestId('spot-bar')).toBeNull())
  })

  it('shows the limits beside the code, in both languages, and Change opens the limits form', async () => {
    const { stores } = await instructorReady({
      limits: { ...instructorClass().limits, max_iterations: 5, concurrent_runs: 2, runs_per_hour: 20, max_student_tests: 5, tokens_per_student: 150000, tokens_for_class: 3000000 },
    })
    const items = screen.getByTestId('limits-summary-items')
    expect(items.textContent).toBe('5 iterations a run · 2 runs at a time · 20 runs an hour · 5 student tests a run · 150,000 tokens · class: 3,000,000 tokens')
    expect(screen.queryByTestId('limits-form')).toBeNull()
    fireEvent.click(screen.getByTestId('limits-summary-change'))
    const form = await screen.findByTestId('limits-form')
    expect(within(form).getByTestId('limit-max-iterations')).toHaveProperty('value', '5')
    act(() => stores.settings.getState().setLang('pt'))
    await waitFor(() => expect(screen.getByTestId('limits-summary-items').textContent).toBe('5 iterações por execução · 2 execuções por vez · 20 execuções por hora · 5 testes do aluno por execução · 150.000 tokens · turma: 3.000.000 tokens'))
  })

  it('the wall shows a run moved to the budget model, one a budget stopped, and the estimated queue wait', async () => {
    const { api } = await instructorReady()
    const card = (name: string) => screen.getAllByTestId('wall-card').find((c) => c.getAttribute('data-student') === name)!
    act(() => {
      api.events.emitClass({ type: 'wall', payload: wallEntry('Ana', { iteration: 1, queue_position: 2, queue_wait_ms: 3500, provider: 'ollama', budget_from: 'openai' }) })
      api.events.emitClass({
        type: 'wall',
        payload: wallEntry('Caio', { status: 'error', ended_at: new Date().toISOString(), error_code: 'class.quota.tokens', error_params: { limit: '150000' } }),
      })
    })
    await waitFor(() => expect(within(card('Ana')).getByTestId('wall-queue').textContent).toBe('2 ahead · about 4 s'))
    expect(within(card('Ana')).getByTestId('wall-budget-switch').textContent).toBe('budget: moved from openai')
    await waitFor(() => expect(within(card('Caio')).getByTestId('wall-budget-stop').textContent).toBe('Your token budget (150,000) is used up.'))
    expect(within(card('Ana')).queryByTestId('wall-budget-stop')).toBeNull()
  })

  it('the wall shows each student’s best tests passed, iterations and prompt length, in both languages', async () => {
    const { api, stores } = await instructorReady()
    const card = (name: string) => screen.getAllByTestId('wall-card').find((c) => c.getAttribute('data-student') === name)!
    act(() => {
      api.events.emitClass({
        type: 'wall',
        payload: wallEntry('Ana', { status: 'success', ended_at: new Date().toISOString() }, {
          best: { run_id: 'r-Ana', tests_passed: 5, tests_total: 5, success: true, iterations: 2, prompt_chars: 48, runs: 3 },
        }),
      })
      api.events.emitClass({
        type: 'wall',
        payload: wallEntry('Bia', { iteration: 1, tests_passed: 1, tests_total: 5 }, {
          best: { run_id: 'r-old', tests_passed: 4, tests_total: 5, success: false, iterations: 3, prompt_chars: 120, runs: 2 },
        }),
      })
    })
    await waitFor(() => expect(card('Ana').getAttribute('data-best')).toBe('5/5'))
    expect(within(card('Ana')).getByTestId('wall-best-tests').textContent).toBe('best 5/5')
    expect(within(card('Ana')).getByTestId('wall-best').textContent).toContain('2 it. · 48 chars')
    // A run being judged shows its own count beside the best.
    expect(within(card('Bia')).getByTestId('wall-best').textContent).toBe('best 4/53 it. · 120 chars · tests 1/5')
    expect(within(card('Caio')).queryByTestId('wall-best')).toBeNull()
    act(() => stores.settings.getState().setLang('pt'))
    await waitFor(() => expect(within(card('Ana')).getByTestId('wall-best-tests').textContent).toBe('melhor 5/5'))
    expect(within(card('Bia')).getByTestId('wall-best').textContent).toContain('3 it. · 120 car. · testes 1/5')
  })

  it('the limits form sets the budgets’ window, hold and budget model, and the summary says them', async () => {
    const { ops } = await instructorReady({ limits: { ...instructorClass().limits, tokens_per_student: 150000 } })
    fireEvent.click(screen.getByTestId('class-limits'))
    const limits = await screen.findByTestId('limits-form')
    fireEvent.change(within(limits).getByTestId('limit-budget-window'), { target: { value: 'week' } })
    fireEvent.change(within(limits).getByTestId('limit-tokens-iteration'), { target: { value: '4000' } })
    fireEvent.change(within(limits).getByTestId('limit-budget-profile'), { target: { value: 'fake' } })
    fireEvent.click(within(limits).getByTestId('limits-save'))
    await waitFor(() => expect(ops.ClassSettings).toHaveBeenCalled())
    expect(ops.ClassSettings.mock.calls[0][0]).toMatchObject({ budget_window: 'week', tokens_per_iteration: 4000, budget_profile: 'fake', tokens_per_student: 150000 })
    await waitFor(() => expect(screen.getByTestId('limits-summary-items').textContent).toBe('150,000 tokens · budgets per week · then fake'))
  })

  it('warns beside the code when the class has no limits', async () => {
    await instructorReady()
    expect(screen.getByTestId('limits-summary-items').textContent).toContain('no limits')
  })

  it('pause, assignment and limits go to the server and show what it answered', async () => {
    const { ops } = await instructorReady()
    fireEvent.click(screen.getByTestId('class-pause'))
    await waitFor(() => expect(ops.PauseClass).toHaveBeenCalledWith({ paused: true }))
    await waitFor(() => expect(screen.getByTestId('class-pause').textContent).toBe('Resume class'))

    fireEvent.click(screen.getByTestId('class-assignment'))
    const form = await screen.findByTestId('assignment-form')
    fireEvent.click(within(form).getByTestId('assign-push'))
    expect(within(form).getByText('Write a prompt or pick a built-in one.')).toBeTruthy()
    fireEvent.change(within(form).getByTestId('assign-preset'), { target: { value: 'data-structures-en' } })
    expect(within(form).getByTestId('assign-prompt')).toHaveProperty('value', 'Write a didactic Python script')
    fireEvent.change(within(form).getByTestId('assign-iterations'), { target: { value: '4' } })
    fireEvent.change(within(form).getByTestId('assign-reflect'), { target: { value: 'off' } })
    fireEvent.click(within(within(form).getByTestId('assign-providers')).getByRole('checkbox'))
    fireEvent.click(within(form).getByTestId('assign-push'))
    await waitFor(() =>
      expect(ops.Assign).toHaveBeenCalledWith({
        title: 'Data structures (en)',
        preset: 'data-structures-en',
        prompt: 'Write a didactic Python script',
        max_iterations: 4,
        reflect: false,
        providers: ['fake'],
      }),
    )

    fireEvent.click(screen.getByTestId('class-limits'))
    const limits = await screen.findByTestId('limits-form')
    fireEvent.change(within(limits).getByTestId('limit-concurrent-runs'), { target: { value: '2' } })
    fireEvent.change(within(limits).getByTestId('limit-runs-per-hour'), { target: { value: '20' } })
    fireEvent.click(within(within(limits).getByTestId('limit-providers')).getAllByRole('checkbox')[0])
    fireEvent.click(within(limits).getByTestId('limits-save'))
    await waitFor(() => expect(ops.ClassSettings).toHaveBeenCalled())
    expect(ops.ClassSettings.mock.calls[0][0]).toMatchObject({ concurrent_runs: 2, runs_per_hour: 20, providers: ['fake'], scratch_workspace: false })
    expect(await within(limits).findByText('Saved')).toBeTruthy()
  })

  it('a refusal from the server is shown', async () => {
    const { ops } = await instructorReady()
    ops.PauseClass.mockRejectedValueOnce(new ApiError('not in class mode', 409))
    fireEvent.click(screen.getByTestId('class-pause'))
    expect((await screen.findByTestId('class-error')).textContent).toContain('not in class mode')
  })

  it('exports the class and removes a student after asking', async () => {
    const { api, ops } = await instructorReady()
    fireEvent.click(screen.getByTestId('class-export-zip'))
    await waitFor(() => expect(api.fetchClassExport).toHaveBeenCalledWith('zip', 'en', expect.any(String)))

    fireEvent.click(screen.getAllByTestId('wall-card').find((c) => c.getAttribute('data-student') === 'Bia')!)
    fireEvent.click(await screen.findByTestId('remove-student'))
    expect(ops.RemoveStudent).not.toHaveBeenCalled()
    fireEvent.click(screen.getByTestId('remove-confirm'))
    await waitFor(() => expect(ops.RemoveStudent).toHaveBeenCalledWith({ id: 'st-Bia' }))
  })

  it('speaks Portuguese', async () => {
    const { stores } = await instructorReady()
    act(() => stores.settings.getState().setLang('pt'))
    expect((await screen.findByTestId('nav-class')).textContent).toBe('Turma')
    expect(screen.getByTestId('class-pause').textContent).toBe('Pausar turma')
    expect(screen.getByTestId('class-counts').textContent).toContain('3 alunos')
  })
})

describe('outside class mode', () => {
  it('the instructor’s app is today’s: no Class tab, Run first', async () => {
    renderApp(fakeApi(), { me: null })
    await screen.findByTestId('provider-fake')
    expect(screen.queryByTestId('nav-class')).toBeNull()
    expect(screen.getByTestId('nav-run').getAttribute('aria-current')).toBe('page')
  })
})
