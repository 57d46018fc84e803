// @vitest-environment happy-dom
// A student's learning path over a fake Api: the instructor opens it from a
// wall card (the student's runs, iterations, errors, reflections, tokens and
// time to a working program; read again when the student's line moves), and
// students are told, on the join page and in their app and in both
// languages, that the instructor can see their runs.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../api'
import type { LearningPath, Me } from '../../api/gen/wire'
import { fakeApi, type FakeApi } from '../../test/fakeApi'
import { classView, fakeClass, instructorClass, wallEntry } from '../../test/fakeClass'
import { renderApp } from '../../test/render'

beforeEach(() => window.history.replaceState(null, '', '/'))
afterEach(() => {
  cleanup()
  window.history.replaceState(null, '', '/')
})

const anaPath: LearningPath = {
  class_id: 'c_1',
  class_name: 'Turma A',
  student_id: 'st-Ana',
  name: 'Ana',
  input_tokens: 360,
  output_tokens: 79,
  cost_usd: 0,
  assignments: [{ assignment: 'Exercício 1', runs: 1, first_run: '2026-11-27T12:00:00Z', working_after_ms: 2500 }],
  runs: [
    {
      run_id: 'run-Ana',
      session_id: 'sess-Ana',
      session_title: 'Greeting',
      assignment: 'Exercício 1',
      prompt: 'Print a greeting — Ana',
      provider: 'fake',
      status: 'success',
      started_at: '2026-11-27T12:00:00Z',
      ended_at: '2026-11-27T12:00:03Z',
      input_tokens: 360,
      output_tokens: 79,
      cost_usd: 0,
      working_after_ms: 2500,
      iterations: [
        {
          n: 1,
          status: 'error',
          error_kind: 'error',
          error: 'exit 1: ZeroDivisionError: division by zero',
          code: 'print(1/0)',
          reflection: 'It **divides** by zero.',
          input_tokens: 240,
          output_tokens: 51,
          duration_ms: 1500,
        },
        { n: 2, status: 'success', code: "print('hi')", input_tokens: 120, output_tokens: 28, duration_ms: 1000 },
      ],
    },
  ],
}

function withPath(api: FakeApi, answer: (input: { id: string }) => Promise<LearningPath>) {
  const base = api.call.getMockImplementation() as (name: string, input: unknown) => Promise<unknown>
  const path = vi.fn(answer)
  api.call.mockImplementation(async (name: string, input: unknown) => (name === 'LearningPath' ? path(input as { id: string }) : base(name, input)))
  return path
}

describe('the learning path (instructor)', () => {
  it('opens from a card: the runs, their iterations, errors and reflections; read again when the line moves', async () => {
    const api = fakeApi()
    const wall = [wallEntry('Ana', { status: 'success', ended_at: new Date().toISOString() }), wallEntry('Bia', null)]
    fakeClass(api, { role: 'instructor', class: instructorClass() }, wall)
    const path = withPath(api, async () => anaPath)
    renderApp(api, { me: null })
    await waitFor(() => expect(screen.getAllByTestId('wall-card')).toHaveLength(2))
    fireEvent.click(screen.getAllByTestId('wall-card').find((c) => c.getAttribute('data-student') === 'Ana')!)
    const pane = await screen.findByTestId('student-pane')
    fireEvent.click(within(pane).getByTestId('student-tab-path'))
    const view = await screen.findByTestId('learning-path')
    await waitFor(() => expect(view.getAttribute('data-loaded')).toBe('yes'))
    expect(path).toHaveBeenCalledWith({ id: 'st-Ana' })
    expect(within(view).getByTestId('path-prompt').textContent).toBe('Print a greeting — Ana')
    expect(within(view).getByTestId('path-run-assignment').textContent).toBe('Exercício 1')
    const its = within(view).getAllByTestId('path-iteration')
    expect(its.map((i) => i.getAttribute('data-status'))).toEqual(['error', 'success'])
    expect(within(its[0]).getByTestId('path-error').textContent).toContain('ZeroDivisionError')
    expect(within(its[0]).getByTestId('path-reflection').innerHTML).toContain('<strong>divides</strong>')
    expect(its[0].textContent).toContain('240 in / 51 out tokens')
    expect(within(view).getByTestId('path-assignment').textContent).toContain('working program after 2.5 s')
    expect(within(view).getByTestId('path-totals').textContent).toBe('1 run · 360 tokens in, 79 out')

    // The student starts another run: the wall line moves, the path is read again.
    act(() => api.events.emitClass({ type: 'wall', payload: wallEntry('Ana', { run_id: 'run-Ana-2', status: 'running', iteration: 1 }) }))
    await waitFor(() => expect(path).toHaveBeenCalledTimes(2))
  })

  it('a refusal shows in the pane', async () => {
    const api = fakeApi()
    fakeClass(api, { role: 'instructor', class: instructorClass() }, [wallEntry('Ana', null)])
    withPath(api, async () => {
      throw new ApiError('only the instructor may do this', 403)
    })
    renderApp(api, { me: null })
    fireEvent.click(await screen.findByTestId('wall-card'))
    // A student with no run opens on the path.
    expect((await screen.findByTestId('path-error-load')).textContent).toContain('Could not load the learning path')
  })
})

describe('the notice that the instructor can see a student’s runs', () => {
  const student: Me = { role: 'student', student_id: 'st-1', name: 'Ana', class: classView() }

  it('is on the join page and in the student’s app, in English and in Portuguese', async () => {
    window.history.replaceState(null, '', '/join?code=k7qx2m')
    const api = fakeApi()
    fakeClass(api, student)
    api.call.mockRejectedValueOnce(new ApiError('missing or wrong token', 401)) // no cookie yet
    const { stores } = renderApp(api, { me: null })
    expect((await screen.findByTestId('seen-notice-join')).textContent).toContain('Your instructor can see your runs')
    act(() => stores.settings.getState().setLang('pt'))
    await waitFor(() => expect(screen.getByTestId('seen-notice-join').textContent).toContain('Seu professor pode ver suas execuções'))
    act(() => stores.settings.getState().setLang('en'))

    fireEvent.change(screen.getByTestId('join-name'), { target: { value: 'Ana' } })
    api.joinClass!.mockResolvedValueOnce(student)
    fireEvent.click(screen.getByTestId('join-submit'))
    expect((await screen.findByTestId('seen-notice-app')).textContent).toContain('Your instructor can see your runs')
    act(() => stores.settings.getState().setLang('pt'))
    await waitFor(() => expect(screen.getByTestId('seen-notice-app').textContent).toContain('Seu professor pode ver suas execuções'))
  })
})
