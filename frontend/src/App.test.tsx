// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ErrorBoundary } from './components/common/ErrorBoundary'
import { fakeApi, finished, twoIterationRun } from './test/fakeApi'
import { renderApp } from './test/render'

afterEach(() => {
  cleanup()
  delete document.documentElement.dataset.theme
})

async function ready() {
  const r = renderApp()
  await screen.findByTestId('provider-fake')
  return r
}

function codeOf(testId: string): string {
  return [...screen.getByTestId(testId).querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n')
}

describe('Run panel', () => {
  it('selects the ready provider and says why the others are not ready', async () => {
    await ready()
    const fake = within(screen.getByTestId('provider-fake')).getByRole('checkbox')
    expect((fake as HTMLInputElement).checked).toBe(true)
    const off = screen.getByTestId('provider-openai')
    expect(off.textContent).toContain('no API key: set OPENAI_API_KEY')
    expect(within(screen.getByTestId('providers')).getAllByRole('checkbox')).toHaveLength(1)
  })

  it('shows a failed provider list with Retry instead of an endless spinner', async () => {
    const api = fakeApi()
    api.providers.mockRejectedValueOnce(new Error('connection refused'))
    renderApp(api)
    const alert = await screen.findByText(/Could not list the providers/)
    expect(alert.parentElement!.textContent).toContain('connection refused')
    fireEvent.click(within(alert.parentElement!).getByRole('button', { name: 'Retry' }))
    await screen.findByTestId('provider-fake')
  })

  it('fills the prompt from a preset and starts a run with the settings', async () => {
    const { api } = await ready()
    fireEvent.change(screen.getByTestId('preset'), { target: { value: 'data-structures-en' } })
    expect(screen.getByTestId('prompt')).toHaveProperty('value', 'Write a didactic Python script')
    // The form starts from the configured defaults (loopforge.yml): 3 iterations, reflection off, 20 s.
    expect(screen.getByTestId('max-iterations')).toHaveProperty('value', '3')
    expect(screen.getByTestId('reflect')).toHaveProperty('checked', false)
    expect(screen.getByTestId('timeout')).toHaveProperty('value', '20')
    fireEvent.change(screen.getByTestId('max-iterations'), { target: { value: '4' } })
    fireEvent.click(screen.getByTestId('reflect'))
    fireEvent.change(screen.getByTestId('timeout'), { target: { value: '12' } })
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
    expect(api.startRun).toHaveBeenCalledWith({
      prompt: 'Write a didactic Python script',
      provider: 'fake',
      max_iterations: 4,
      reflect: true,
      timeout_seconds: 12,
      language: 'python',
    })
    await screen.findByTestId('run-view')
  })

  it('asks for a prompt before running', async () => {
    const { api } = await ready()
    fireEvent.click(screen.getByTestId('run'))
    expect(await screen.findByText('Write a prompt or pick a preset first.')).toBeTruthy()
    expect(api.startRun).not.toHaveBeenCalled()
  })

  it('shows why a run did not start', async () => {
    const api = fakeApi()
    api.startRun.mockRejectedValueOnce(new Error('unknown provider "nope"'))
    renderApp(api)
    await screen.findByTestId('provider-fake')
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'hi' } })
    fireEvent.click(screen.getByTestId('run'))
    expect((await screen.findByTestId('start-error')).textContent).toContain('unknown provider "nope"')
  })
})

describe('Live run view', () => {
  async function started() {
    const r = await ready()
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'greet' } })
    fireEvent.click(screen.getByTestId('run'))
    await screen.findByTestId('run-view')
    return r
  }

  it('streams generation and reflection in different blocks, then shows the outcome', async () => {
    const { api } = await started()
    const ev = twoIterationRun('run-1')
    act(() => ev.slice(0, 3).forEach((e) => api.events.emit(e)))
    expect(screen.getByTestId('stream-generation').textContent).toContain('Here')
    expect(screen.queryByTestId('run-banner')).toBeNull()
    expect(screen.getByTestId('iteration-chip').dataset.phase).toBe('generating')

    act(() => ev.slice(3, 9).forEach((e) => api.events.emit(e)))
    expect(screen.getByTestId('iteration-chip').dataset.phase).toBe('reflecting')
    const refl = screen.getByTestId('stream-reflection')
    expect(refl.textContent).toContain('It divides')
    expect(refl.className).not.toBe(screen.getByTestId('stream-generation').className)
    expect(screen.getByTestId('stderr').textContent).toContain('ZeroDivisionError')
    expect(screen.getByTestId('exit-code').textContent).toBe('1')
    expect(screen.getByTestId('isolation').textContent).toBe('basic')
    expect([...screen.getByTestId('protections').children].map((el) => el.textContent)).toEqual(['files ✗', 'network ✗', 'processes ✗', 'memory ✗', 'signals ✓'])
    expect(screen.getByTestId('sandbox-warning').textContent).toContain('install bubblewrap')

    act(() => ev.slice(9).forEach((e) => api.events.emit(e)))
    const banner = screen.getByTestId('run-banner')
    expect(banner.dataset.status).toBe('success')
    expect(banner.textContent).toContain('Success after 2 iterations')
    expect(screen.getAllByTestId('iteration-chip').map((c) => c.dataset.phase)).toEqual(['error', 'success'])
    expect(codeOf('final-code')).toBe("print('hi')")
    expect(screen.getByTestId('stdout').textContent).toBe('hi\n')
    expect(screen.getByTestId('tokens').textContent).toBe('300 in · 60 out')
    expect(screen.getByTestId('iteration-progress').getAttribute('aria-valuenow')).toBe('2')

    // Step back to iteration 1 and look at the diff on 2.
    fireEvent.click(screen.getByTestId('step-prev'))
    expect(codeOf('code')).toBe('print(1/0)')
    fireEvent.click(screen.getByTestId('step-next'))
    fireEvent.click(screen.getByTestId('diff-tab'))
    expect(screen.getByTestId('final-code').dataset.mode).toBe('diff')
  })

  it('Stop cancels, and the cancelled banner shows when run_finished arrives', async () => {
    const { api } = await started()
    act(() => twoIterationRun('run-1').slice(0, 3).forEach((e) => api.events.emit(e)))
    const stop = screen.getByTestId('stop')
    expect((stop as HTMLButtonElement).disabled).toBe(false)
    fireEvent.click(stop)
    await waitFor(() => expect(api.cancelRun).toHaveBeenCalledWith('run-1'))
    expect(screen.getByTestId('stop').textContent).toBe('Stopping…')
    act(() => api.events.emit(finished('run-1', 4, 'cancelled', 'cancelled by the user')))
    const banner = screen.getByTestId('run-banner')
    expect(banner.dataset.status).toBe('cancelled')
    expect(banner.textContent).toContain('Cancelled')
    expect((screen.getByTestId('stop') as HTMLButtonElement).disabled).toBe(true)
    expect(screen.getByTestId('iteration-chip').dataset.phase).toBe('stopped')
  })

  it('shows what the provider said when a run fails', async () => {
    const { api } = await started()
    const params = { provider: 'openai', status: '401', env: 'OPENAI_API_KEY', message: 'Incorrect API key provided' }
    act(() => api.events.emit(finished('run-1', 1, 'error', 'openai: the API key was rejected (HTTP 401)', undefined, 'provider.auth', params)))
    expect(screen.getByTestId('run-banner').dataset.status).toBe('error')
    expect(screen.getByTestId('run-error').textContent).toBe(
      'The provider said: openai: the API key was rejected (HTTP 401); check OPENAI_API_KEY. It said: Incorrect API key provided',
    )
  })

  it("does not put loopforge's own refusals in the provider's mouth", async () => {
    const { api } = await started()
    const msg = 'cannot run generated code: sandbox: no usable isolation'
    act(() => api.events.emit(finished('run-1', 1, 'error', msg, undefined, 'sandbox.unavailable', { detail: 'sandbox: no usable isolation' })))
    expect(screen.getByTestId('run-error').textContent).toBe(
      'Generated code cannot run on this machine (loopforge doctor says why): sandbox: no usable isolation',
    )
  })

  it('does not put a workspace guard refusal in the provider\'s mouth', async () => {
    const { api } = await started()
    const msg =
      "the repository's git control files changed while the model (provider codex) was working: .git/hooks/pre-commit; loopforge will not run git on /home/ana/calc; inspect them first"
    act(() => api.events.emit(finished('run-1', 1, 'error', msg, 'workspace_guard')))
    expect(screen.getByTestId('run-banner').dataset.status).toBe('error')
    expect(screen.getByTestId('run-error').textContent).toBe('Stopped to protect the repository: ' + msg)
  })

  it('says so while the event connection is down, and clears when it is back', async () => {
    const { api } = await started()
    act(() => api.events.setState({ status: 'reconnecting', attempt: 2, retryInMs: 2000, reason: 'connection lost (code 1006)' }))
    expect(screen.getByTestId('connection').textContent).toContain('reconnecting in 2s (attempt 2)')
    expect(screen.getByTestId('run-paused')).toBeTruthy()
    act(() => api.events.setState({ status: 'open' }))
    expect(screen.queryByTestId('connection')).toBeNull()
    expect(screen.queryByTestId('run-paused')).toBeNull()
  })
})

describe('Header', () => {
  it('toggles the theme on the document', async () => {
    await ready()
    const html = document.documentElement
    expect(html.dataset.theme).toBe('light')
    fireEvent.click(screen.getByTestId('theme')) // system → light
    fireEvent.click(screen.getByTestId('theme')) // light → dark
    expect(html.dataset.theme).toBe('dark')
    fireEvent.click(screen.getByTestId('projector'))
    expect(html.dataset.projector).toBe('on')
  })

  it('web: sets the workdir from a typed path and shows why the server refused one', async () => {
    const api = fakeApi()
    api.setWorkdir.mockRejectedValueOnce(new Error('workdir /nope: no such directory'))
    renderApp(api)
    fireEvent.click(await screen.findByTestId('workdir-change'))
    fireEvent.change(screen.getByTestId('workdir-input'), { target: { value: '/nope' } })
    fireEvent.submit(screen.getByTestId('workdir-input').closest('form')!)
    expect((await screen.findByTestId('workdir-error')).textContent).toBe('workdir /nope: no such directory')
    fireEvent.change(screen.getByTestId('workdir-input'), { target: { value: '/home/ana/aulas' } })
    fireEvent.submit(screen.getByTestId('workdir-input').closest('form')!)
    await waitFor(() => expect(screen.getByTestId('workdir-path').textContent).toBe('/home/ana/aulas'))
    expect(screen.queryByTestId('workdir-error')).toBeNull()
  })

  it('desktop: offers the native folder dialog and the drop hint', async () => {
    const api = fakeApi('desktop')
    renderApp(api)
    fireEvent.click(await screen.findByRole('button', { name: 'Choose folder…' }))
    await waitFor(() => expect(screen.getByTestId('workdir-path').textContent).toBe('/chosen'))
    expect(screen.getByText('or drop a folder on the window')).toBeTruthy()
  })
})

describe('ErrorBoundary', () => {
  it('shows the error and a way back instead of a blank page', () => {
    const Boom = () => {
      throw new Error('kaboom')
    }
    const spy = console.error
    console.error = () => {}
    try {
      render(
        <ErrorBoundary>
          <Boom />
        </ErrorBoundary>,
      )
    } finally {
      console.error = spy
    }
    expect(screen.getByRole('alert').textContent).toContain('kaboom')
    expect(screen.getByRole('button', { name: 'Reload' })).toBeTruthy()
  })
})
