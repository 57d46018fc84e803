// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { RepeatGroup, RepeatStatus, SessionDetail } from '../../api'
import { bestGroup, bestOf, measures, repeatRequest } from '../../stores/repeat'
import { fakeApi, readyProvider, sessionDetail, type FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'

afterEach(cleanup)

function group(p: Partial<RepeatGroup>): RepeatGroup {
  const none = { mean: 0, sd: 0, n: 0 }
  return {
    provider: 'fake',
    model: 'fake-model',
    reflect: true,
    runs: 3,
    successes: 3,
    pass_all: true,
    pass_at_1: 1,
    iterations_to_green: { mean: 2, sd: 0.5, n: 3 },
    wall_ms: { mean: 4000, sd: 1000, n: 3 },
    cost_usd: none,
    tests_passed: none,
    ...p,
  }
}

function status(p: Partial<RepeatStatus>): RepeatStatus {
  return {
    id: 'rp_1',
    version: 1,
    state: 'running',
    repeat: 3,
    reflect_ab: true,
    providers: ['fake', 'other'],
    prompt: 'Print a greeting',
    round: 1,
    rounds: 6,
    reflect: true,
    runs: [],
    runs_done: 0,
    runs_total: 12,
    sessions: ['s1'],
    groups: [],
    ...p,
  }
}

describe('repeat request and ranking', () => {
  it('sends the comparison’s request for every round, N clamped, reflection on, off or A/B', () => {
    const base = { prompt: 'p', max_iterations: 4, reflect: true, session_id: 'old', provider: 'x', fresh: true, allow_network: true, tests: 'tests: []' }
    expect(repeatRequest(base, ['a', 'b'], 99, 'ab')).toEqual({ prompt: 'p', max_iterations: 4, tests: 'tests: []', providers: ['a', 'b'], repeat: 20, reflect_ab: true })
    expect(repeatRequest(base, ['a', 'b'], 0, 'off')).toMatchObject({ repeat: 1, reflect: false })
    expect(repeatRequest(base, ['a', 'b'], 3, 'on')).toMatchObject({ repeat: 3, reflect: true })
    expect(repeatRequest(base, ['a', 'b'], 3, 'on')).not.toHaveProperty('reflect_ab')
  })

  it('the best group passes most often, then reaches green in the fewest iterations; none when none passed', () => {
    const gs = [
      group({ provider: 'a', pass_at_1: 2 / 3, successes: 2, pass_all: false }),
      group({ provider: 'b', iterations_to_green: { mean: 1.5, sd: 0.5, n: 3 } }),
      group({ provider: 'c' }),
    ]
    expect(bestGroup(gs)).toBe(1)
    expect([...bestOf(gs, measures.green, false)]).toEqual([1])
    expect([...bestOf(gs, measures.passAt1, true)]).toEqual([1, 2])
    expect(bestGroup([group({ pass_at_1: 0, successes: 0, pass_all: false, iterations_to_green: { mean: 0, sd: 0, n: 0 } })])).toBe(-1)
    // A measure no group has highlights nothing.
    expect(bestOf(gs, measures.cost, false).size).toBe(0)
  })
})

/** A finished comparison of fake and other, opened from the history; call answers the repeat operations by the test's script. */
async function openComparison(api: FakeApi) {
  const d: SessionDetail = sessionDetail()
  d.mode = 'compare'
  d.runs = [d.runs![0], { ...d.runs![0], id: 'run-b', provider: 'other', prompt: 'Print a greeting' }]
  api.providers.mockResolvedValue([readyProvider, { ...readyProvider, name: 'other', model: 'other-model', default: false }, { ...readyProvider, name: 'third', model: 'm3', default: false }])
  api.sessions.mockResolvedValue([{ id: 'sess-1', title: 't', prompt: 'p', mode: 'compare', workdir: '', created_at: '', updated_at: '', runs: [] }])
  api.session.mockResolvedValue(d)
  const r = renderApp(api)
  fireEvent.click(screen.getByTestId('nav-history'))
  fireEvent.click(await screen.findByTestId('session'))
  fireEvent.click(await screen.findByTestId('open-comparison'))
  await screen.findAllByTestId('compare-column')
  return r
}

/** scripted makes api.call answer StartRepeat and CancelRepeat at once and each Repeat poll with the next promise the test resolves. */
function scripted(api: FakeApi) {
  const polls: Array<{ after: number; resolve(s: RepeatStatus): void }> = []
  api.call.mockImplementation(async (name: string, input: { after?: number }) => {
    switch (name) {
      case 'Me':
        return { role: 'instructor' }
      case 'StartRepeat':
        return status({})
      case 'CancelRepeat':
        return { ok: true }
      case 'Repeat':
        return new Promise<RepeatStatus>((resolve) => polls.push({ after: input.after ?? -1, resolve }))
    }
    throw new Error(`not faked: ${name}`)
  })
  return polls
}

describe('repeat to measure', () => {
  it('starts from the comparison with its providers, follows the progress live and shows the results with the best highlighted', async () => {
    const api = fakeApi()
    const polls = scripted(api)
    const { stores } = await openComparison(api)
    fireEvent.click(await screen.findByTestId('repeat-open'))
    const form = await screen.findByTestId('repeat-form')
    // The comparison's providers are ticked; a third ready one is offered.
    expect((within(screen.getByTestId('repeat-provider-fake')).getByRole('checkbox') as HTMLInputElement).checked).toBe(true)
    expect((within(screen.getByTestId('repeat-provider-third')).getByRole('checkbox') as HTMLInputElement).checked).toBe(false)
    fireEvent.change(within(form).getByTestId('repeat-n'), { target: { value: '3' } })
    fireEvent.click(within(form).getByTestId('repeat-start'))
    await waitFor(() => expect(api.call).toHaveBeenCalledWith('StartRepeat', expect.objectContaining({ providers: ['fake', 'other'], repeat: 3, reflect_ab: true, prompt: 'Print a greeting' })))

    const progress = await screen.findByTestId('repeat-progress')
    expect(screen.getByTestId('repeat-run-of').textContent).toBe('run 1 of 12')
    expect(screen.getByTestId('repeat-round').textContent).toBe('round 1 of 6, reflection on')
    // The store asks for the version after the one it has (a long poll).
    await waitFor(() => expect(polls).toHaveLength(1))
    expect(polls[0].after).toBe(1)
    act(() => polls[0].resolve(status({ version: 4, runs_done: 2, round: 2, reflect: false, groups: [group({ provider: 'fake', runs: 1, successes: 1 })] })))
    await waitFor(() => expect(screen.getByTestId('repeat-run-of').textContent).toBe('run 3 of 12'))
    expect(progress.dataset.done).toBe('2')
    expect(screen.getByTestId('repeat-round').textContent).toBe('round 2 of 6, reflection off')
    await waitFor(() => expect(polls).toHaveLength(2))
    expect(polls[1].after).toBe(4)

    const groups = [
      group({ provider: 'fake', reflect: true, cost_usd: { mean: 0.002, sd: 0.001, n: 3 } }),
      group({ provider: 'other', reflect: true, pass_at_1: 1 / 3, successes: 1, pass_all: false, iterations_to_green: { mean: 3, sd: 0, n: 1 }, cost_usd: { mean: 0.02, sd: 0, n: 3 } }),
      group({ provider: 'fake', reflect: false, iterations_to_green: { mean: 1.5, sd: 0.5, n: 3 }, cost_usd: { mean: 0.001, sd: 0, n: 3 } }),
      group({ provider: 'other', reflect: false, pass_at_1: 0, successes: 0, pass_all: false, iterations_to_green: { mean: 0, sd: 0, n: 0 }, cost_usd: { mean: 0.01, sd: 0, n: 3 } }),
    ]
    act(() => polls[1].resolve(status({ version: 30, state: 'done', runs_done: 12, round: 6, sessions: ['s1', 's2', 's3', 's4', 's5', 's6'], groups })))
    await waitFor(() => expect(screen.getByTestId('repeat-state').textContent).toBe('Done'))
    expect(polls).toHaveLength(2) // an ended repeat is not asked about again
    expect(screen.queryByTestId('repeat-cancel')).toBeNull()
    expect(screen.getByTestId('repeat-panel').textContent).toContain('The 6 rounds are comparisons in the history.')

    let rows = screen.getAllByTestId('repeat-row')
    expect(rows.map((r) => `${r.dataset.provider}/${r.dataset.reflect}`)).toEqual(['fake/on', 'other/on', 'fake/off', 'other/off'])
    const cell = (row: number, col: string) => rows[row].querySelector(`[data-col="${col}"]`) as HTMLElement
    expect(cell(1, 'pass_all').textContent).toBe('no')
    expect(cell(1, 'pass_at_1').textContent).toBe('1/3 (33%)')
    expect(cell(2, 'iterations_to_green').textContent).toBe('1.5 ± 0.5')
    expect(cell(3, 'iterations_to_green').textContent).toBe('—')
    expect(cell(2, 'cost_usd').textContent).toBe('$0.0010 ± $0.0000')
    expect(cell(0, 'wall_ms').textContent).toBe('4.0 ± 1.0 s')
    // The best: fake without reflection (all passed, fewest iterations, cheapest).
    expect(rows[2].dataset.best).toBe('true')
    expect(within(rows[2]).getByTestId('repeat-best').textContent).toBe('best')
    expect(cell(2, 'iterations_to_green').classList.contains('best')).toBe(true)
    expect(cell(2, 'cost_usd').classList.contains('best')).toBe(true)
    expect(cell(0, 'pass_at_1').classList.contains('best')).toBe(true)
    expect(cell(1, 'pass_at_1').classList.contains('best')).toBe(false)
    expect(screen.getAllByTestId('repeat-best')).toHaveLength(1)

    act(() => stores.settings.getState().setLang('pt'))
    await waitFor(() => expect(screen.getByTestId('repeat-state').textContent).toBe('Concluída'))
    rows = screen.getAllByTestId('repeat-row') // the app renders anew in another language
    expect(cell(1, 'pass_all').textContent).toBe('não')
    expect(within(screen.getByTestId('repeat-table')).getByText('Iterações até passar')).toBeTruthy()
    expect(screen.getByTestId('repeat-panel').textContent).toContain('As 6 rodadas são comparações no histórico.')

    fireEvent.click(screen.getByTestId('repeat-close'))
    await waitFor(() => expect(screen.queryByTestId('repeat-panel')).toBeNull())
    expect(stores.repeat.getState().status).toBeNull()
  })

  it('cancel asks the server to stop it all, and the panel shows it cancelled', async () => {
    const api = fakeApi()
    const polls = scripted(api)
    await openComparison(api)
    fireEvent.click(await screen.findByTestId('repeat-open'))
    fireEvent.click(await screen.findByTestId('repeat-start'))
    fireEvent.click(await screen.findByTestId('repeat-cancel'))
    await waitFor(() => expect(api.call).toHaveBeenCalledWith('CancelRepeat', { id: 'rp_1' }))
    expect(screen.getByTestId('repeat-cancel').textContent).toBe('Stopping…')
    await waitFor(() => expect(polls).toHaveLength(1))
    act(() => polls[0].resolve(status({ version: 3, state: 'cancelled', runs_done: 2 })))
    await waitFor(() => expect(screen.getByTestId('repeat-state').textContent).toBe('Cancelled'))
    expect(screen.queryByTestId('repeat-cancel')).toBeNull()
  })

  it('needs two providers, and shows why the server refused', async () => {
    const api = fakeApi()
    scripted(api)
    api.call.mockImplementation(async (name: string) => {
      if (name === 'Me') return { role: 'instructor' }
      throw { error: 'a comparison needs at least two providers (got 1)', code: 'request.compare_too_few', params: { n: '1' } }
    })
    await openComparison(api)
    fireEvent.click(await screen.findByTestId('repeat-open'))
    fireEvent.click(within(screen.getByTestId('repeat-provider-other')).getByRole('checkbox'))
    expect((screen.getByTestId('repeat-start') as HTMLButtonElement).disabled).toBe(true)
    expect(screen.getByTestId('repeat-form').textContent).toContain('Choose at least two providers.')
    fireEvent.click(within(screen.getByTestId('repeat-provider-third')).getByRole('checkbox'))
    fireEvent.click(screen.getByTestId('repeat-start'))
    expect((await screen.findByRole('alert')).textContent).toContain('The repeat did not start')
    expect(api.call).toHaveBeenCalledWith('StartRepeat', expect.objectContaining({ providers: ['fake', 'third'] }))
  })

  it('is not offered to a student', async () => {
    const api = fakeApi()
    scripted(api)
    const { stores } = await openComparison(api)
    expect(await screen.findByTestId('repeat-open')).toBeTruthy()
    act(() => stores.classroom.setState({ me: { role: 'student', student_id: 's1', name: 'Ana' } as never }))
    await waitFor(() => expect(screen.queryByTestId('repeat-open')).toBeNull())
  })
})
