// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { RunEvent } from '../../api'
import { setLanguage } from '../../strings'
import type { FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'

afterEach(() => {
  cleanup()
  setLanguage('en')
})

const at = (n: number) => new Date(Date.parse('2026-11-21T10:00:00Z') + n * 100).toISOString()

/** A run whose first answer ended as code says, after some text, with the tokens counted until then. */
function failedRun(runId: string, code: string, params: Record<string, string>, error: string): RunEvent[] {
  const e = (seq: number, type: string, payload: object) => ({ type, run_id: runId, seq, ts: at(seq), payload }) as RunEvent
  return [
    e(1, 'run_started', { session_id: 'sess-1', provider: 'fake', model: 'fake-model', prompt: 'greet', max_iterations: 3, reflect: true, language: 'python', mode: 'script' }),
    e(2, 'iteration_started', { iteration: 1 }),
    e(3, 'token', { iteration: 1, phase: 'generate', text: 'Here it is: pri' }),
    e(4, 'run_finished', { status: 'error', iterations: 1, final_code: '', error, error_code: code, error_params: params, input_tokens: 120, output_tokens: 3, duration_ms: 900 }),
  ]
}

async function started(api?: FakeApi) {
  const r = renderApp(api)
  await screen.findByTestId('provider-fake')
  fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'greet' } })
  fireEvent.click(screen.getByTestId('run'))
  await screen.findByTestId('run-view')
  return r
}

describe('a run whose provider failed', () => {
  it('names a broken-off answer, keeps its tokens, and tries the iteration again', async () => {
    const { api } = await started()
    const params = { provider: 'fake', url: 'http://127.0.0.1:9/v1', received: '15', message: 'connection reset by peer' }
    act(() => failedRun('run-1', 'provider.interrupted', params, 'fake: the connection broke off').forEach((e) => api.events.emit(e)))

    expect(screen.getByTestId('run-error').textContent).toBe(
      'The provider said: fake: the connection to http://127.0.0.1:9/v1 broke off in the middle of the answer (after 15 characters): ' +
        "the model's server stopped or the network dropped. Trying the iteration again may work. It said: connection reset by peer",
    )
    expect(screen.getByTestId('tokens').textContent).toBe('120 in · 3 out')

    fireEvent.click(screen.getByTestId('retry-iteration'))
    await waitFor(() => expect(screen.getByTestId('run-view').dataset.runId).toBe('run-2'))
    expect(api.startRun).toHaveBeenLastCalledWith({ prompt: 'greet', retry: 'run-1' })
  })

  it('says in Portuguese that the model refused, and offers no retry', async () => {
    const { api } = await started()
    setLanguage('pt')
    const params = { provider: 'fake', category: 'cyber', message: 'This request was declined.' }
    act(() => failedRun('run-1', 'provider.refused', params, 'fake: the model refused to answer (cyber)').forEach((e) => api.events.emit(e)))
    await waitFor(() =>
      expect(screen.getByTestId('run-error').textContent).toBe('O provedor disse: fake: o modelo se recusou a responder (cyber). Ele disse: This request was declined.'),
    )
    expect(screen.queryByTestId('retry-iteration')).toBeNull()
  })

  it('shows why a retry could not start', async () => {
    const { api } = await started()
    act(() => failedRun('run-1', 'provider.server', { provider: 'fake', status: '503' }, 'fake: server error (HTTP 503)').forEach((e) => api.events.emit(e)))
    api.startRun.mockRejectedValueOnce(new Error('the server went away'))
    fireEvent.click(screen.getByTestId('retry-iteration'))
    expect((await screen.findByTestId('retry-error')).textContent).toContain('the server went away')
    expect(screen.getByTestId('run-view').dataset.runId).toBe('run-1')
  })
})
