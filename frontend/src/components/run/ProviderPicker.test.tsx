// @vitest-environment happy-dom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import type { ProviderStatus, RunEvent } from '../../api/types'
import { createStores, StoresProvider } from '../../stores'
import { fakeApi, memoryStorage, missingKeyProvider, readyProvider } from '../../test/fakeApi'
import { ProviderPicker } from './ProviderPicker'
import { setLanguage } from '../../strings'

afterEach(cleanup)

const rejected: ProviderStatus = {
  ...readyProvider,
  key_rejected: {
    at: '2026-11-21T10:02:00Z',
    message: 'the API key was rejected (HTTP 401); check FAKE_KEY: Incorrect API key provided',
    code: 'provider.auth',
    params: { provider: 'fake', status: '401', env: 'FAKE_KEY', message: 'Incorrect API key provided' },
  },
}

function renderPicker(list: ProviderStatus[]) {
  const api = fakeApi()
  api.providers.mockResolvedValue(list)
  const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn(), lang: 'en' })
  render(
    <StoresProvider stores={stores}>
      <ProviderPicker value={[]} onToggle={() => {}} />
    </StoresProvider>,
  )
  return { api, stores }
}

describe('ProviderPicker dot', () => {
  it('is green for a ready provider', async () => {
    const { stores } = renderPicker([readyProvider, missingKeyProvider])
    await act(() => stores.providers.getState().load())
    const dot = screen.getByTestId('provider-dot-fake')
    expect(dot.className).toBe('dot dot-ok')
    expect(screen.getByTestId('provider-fake').dataset.state).toBe('ready')
    expect(screen.queryByTestId('provider-rejected-fake')).toBeNull()
  })

  it('is amber, with the reason and the time, for a provider whose key was just rejected', async () => {
    const { stores } = renderPicker([rejected, missingKeyProvider])
    await act(() => stores.providers.getState().load())
    const dot = screen.getByTestId('provider-dot-fake')
    expect(dot.className).toBe('dot dot-warn')
    expect(screen.getByTestId('provider-fake').dataset.state).toBe('key-rejected')
    const reason = screen.getByTestId('provider-rejected-fake').textContent ?? ''
    expect(reason).toMatch(/^Key rejected at .+ \(HTTP 401\): check FAKE_KEY\. It said: Incorrect API key provided$/)
    // Still selectable: the user may fix the key outside and retry.
    expect((screen.getByRole('checkbox', { name: /fake/ }) as HTMLInputElement).disabled).toBe(false)
  })

  it('words the rejection in Portuguese, quoting only what the provider said', async () => {
    setLanguage('pt')
    onTestFinished(() => setLanguage('en'))
    const { stores } = renderPicker([rejected])
    await act(() => stores.providers.getState().load())
    const reason = screen.getByTestId('provider-rejected-fake').textContent ?? ''
    expect(reason).toMatch(/^Chave recusada às .+ \(HTTP 401\): verifique FAKE_KEY\. Ele disse: Incorrect API key provided$/)
    expect(reason).not.toContain('was rejected')
  })

  it('turns amber when a run that just ended left its key rejected', async () => {
    const { api, stores } = renderPicker([readyProvider])
    await act(() => stores.providers.getState().load())
    expect(screen.getByTestId('provider-dot-fake').className).toBe('dot dot-ok')

    api.providers.mockResolvedValue([rejected])
    const runId = await act(() => stores.runs.getState().start({ prompt: 'x', provider: 'fake' }))
    expect(runId).toBe('run-1')
    const calls = api.providers.mock.calls.length
    const events: RunEvent[] = [
      { type: 'run_started', run_id: 'run-1', seq: 1, ts: '2026-11-21T10:02:00Z', payload: { session_id: 'sess-1', provider: 'fake', prompt: 'x', max_iterations: 1, reflect: true, language: 'python', mode: 'script' } },
      { type: 'run_finished', run_id: 'run-1', seq: 2, ts: '2026-11-21T10:02:01Z', payload: { status: 'error', iterations: 0, final_code: '', error: 'fake: the API key was rejected (HTTP 401)', input_tokens: 0, output_tokens: 0, duration_ms: 10 } },
    ]
    act(() => events.forEach((e) => api.events.emit(e)))
    await waitFor(() => expect(screen.getByTestId('provider-dot-fake').className).toBe('dot dot-warn'))
    expect(api.providers.mock.calls.length).toBe(calls + 1)
  })
})
