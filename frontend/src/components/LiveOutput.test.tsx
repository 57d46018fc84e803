// @vitest-environment happy-dom
// The execution panel while the code runs: what it printed so far, per
// stream, before exec_finished; the program's input; and after Stop, the
// output it printed stays.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { RunEvent } from '../api'
import { finished, printingRun, type FakeApi } from '../test/fakeApi'
import { renderApp } from '../test/render'

afterEach(cleanup)

function emit(api: FakeApi, events: RunEvent[]) {
  act(() => events.forEach((e) => api.events.emit(e)))
}

async function started(stdin = '') {
  const r = renderApp()
  await screen.findByTestId('provider-fake')
  fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'count slowly' } })
  if (stdin) fireEvent.change(screen.getByTestId('stdin'), { target: { value: stdin } })
  fireEvent.click(screen.getByTestId('run'))
  await screen.findByTestId('run-view')
  return r
}

describe('program output live', () => {
  it('shows what the program printed while it runs, and keeps it after Stop', async () => {
    const { api } = await started('Ada\n')
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ stdin: 'Ada\n' })
    const evs = printingRun('run-1', true)
    emit(api, evs.slice(0, 5))
    const exec = screen.getByTestId('exec')
    expect(within(exec).getByTestId('stdout').textContent).toBe('tick 1\n')
    expect(within(exec).queryByTestId('exec-status')).toBeNull()
    expect(exec.textContent).toContain('Running the code…')
    expect(exec.textContent).not.toContain('Not run yet.')
    expect(within(exec).getByTestId('exec-stdin').textContent).toContain('Ada')

    emit(api, evs.slice(5, 7))
    expect(within(exec).getByTestId('stdout').textContent).toBe('tick 1\ntick 2\n')
    expect(within(exec).getByTestId('stderr').textContent).toBe('warning\n')
    expect(exec.textContent).toContain('the rest is shown when the program ends')

    // Stopped: exec_finished brings the kept output; nothing is lost.
    emit(api, evs.slice(7))
    expect(within(exec).getByTestId('exec-status').textContent).toBe('killed')
    expect(within(exec).getByTestId('stdout').textContent).toBe('tick 1\ntick 2\ntick 3\n')
    expect(within(exec).queryByTestId('exec-live')).toBeNull()
  })

  it('keeps the printed output of a run that ended without exec_finished', async () => {
    const { api } = await started()
    expect(api.startRun.mock.calls[0][0]).not.toHaveProperty('stdin')
    const evs = printingRun('run-1')
    emit(api, [...evs, finished('run-1', evs.length + 1, 'interrupted')])
    const exec = screen.getByTestId('exec')
    expect(within(exec).getByTestId('stdout').textContent).toBe('tick 1\ntick 2\n')
    expect(exec.textContent).toContain('The program did not finish')
    expect(exec.textContent).not.toContain('Not run yet.')
  })
})
