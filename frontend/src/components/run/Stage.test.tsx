// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { RunEvent } from '../../api'
import { finished, twoIterationRun, type FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'
import { codeEnding } from './RunView'

afterEach(() => {
  cleanup()
  delete document.documentElement.dataset.projector
})

function emit(api: FakeApi, events: RunEvent[]) {
  act(() => events.forEach((e) => api.events.emit(e)))
}

async function started(prompt = 'Print a friendly greeting\nin Python, please') {
  const r = renderApp()
  await screen.findByTestId('provider-fake')
  fireEvent.change(screen.getByTestId('prompt'), { target: { value: prompt } })
  fireEvent.click(screen.getByTestId('run'))
  await screen.findByTestId('run-view')
  // The form folds once the server has answered with the run.
  await screen.findByTestId('stage-bar')
  return r
}

const key = (k: string, target: EventTarget = document.body, init: KeyboardEventInit = {}) =>
  act(() => {
    target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init }))
  })

const shown = () => screen.getByTestId('iteration').dataset.iteration

describe('the run form on stage', () => {
  it('folds to one line when a run starts: prompt summary, provider, Stop, and a way back', async () => {
    const { api } = await started()
    const bar = screen.getByTestId('stage-bar')
    expect(screen.getByTestId('stage-prompt').textContent).toBe('Print a friendly greeting')
    expect(within(bar).getByTestId('stage-providers').textContent).toBe('fake')
    expect(screen.queryByTestId('prompt')).toBeNull()
    emit(api, twoIterationRun('run-1').slice(0, 3))
    expect((within(bar).getByTestId('stop') as HTMLButtonElement).disabled).toBe(false)

    // Open it again (still live): the form is back, with a way to fold it.
    fireEvent.click(screen.getByTestId('form-expand'))
    expect(screen.queryByTestId('stage-bar')).toBeNull()
    expect((screen.getByTestId('prompt') as HTMLTextAreaElement).value).toBe('Print a friendly greeting\nin Python, please')
    fireEvent.click(screen.getByTestId('form-collapse'))
    expect(screen.getByTestId('stage-bar')).toBeTruthy()

    // It stays folded after the run ends: the result is what the class looks at.
    emit(api, twoIterationRun('run-1').slice(3))
    expect(screen.getByTestId('run-banner').dataset.status).toBe('success')
    expect(screen.getByTestId('stage-bar')).toBeTruthy()
    expect((screen.getByTestId('stop') as HTMLButtonElement).disabled).toBe(true)
  })

  it('opens again to say why a run did not start', async () => {
    const { api } = await started()
    emit(api, [finished('run-1', 1, 'success')])
    api.startRun.mockRejectedValueOnce(new Error('provider busy'))
    key('Enter', document.body, { ctrlKey: true })
    expect((await screen.findByTestId('start-error')).textContent).toContain('provider busy')
    expect(screen.queryByTestId('stage-bar')).toBeNull()
  })
})

describe('keys', () => {
  it('Ctrl+Enter in the prompt runs', async () => {
    const r = renderApp()
    await screen.findByTestId('provider-fake')
    const prompt = screen.getByTestId('prompt')
    fireEvent.change(prompt, { target: { value: 'greet' } })
    key('Enter', prompt, { ctrlKey: true })
    await waitFor(() => expect(r.api.startRun).toHaveBeenCalledTimes(1))
    expect(r.api.startRun.mock.calls[0][0]).toMatchObject({ prompt: 'greet' })
  })

  it('Esc stops the live run, but not from a text field', async () => {
    const { api } = await started()
    emit(api, twoIterationRun('run-1').slice(0, 3))
    fireEvent.click(screen.getByTestId('form-expand'))
    key('Escape', screen.getByTestId('prompt'))
    key('Escape', screen.getByTestId('max-iterations'))
    expect(api.cancelRun).not.toHaveBeenCalled()
    key('Escape')
    await waitFor(() => expect(api.cancelRun).toHaveBeenCalledWith('run-1'))
  })

  it('← → step the iterations, F toggles following; "Follow live" returns to the newest', async () => {
    const { api } = await started()
    const ev = twoIterationRun('run-1')
    emit(api, ev.slice(0, 12)) // iteration 2 has started
    expect(shown()).toBe('2')
    expect(screen.getByTestId('run-view').dataset.following).toBe('true')
    expect(screen.queryByTestId('follow-live')).toBeNull()

    key('ArrowLeft')
    expect(shown()).toBe('1')
    expect(screen.getByTestId('run-view').dataset.following).toBe('false')
    // A held view does not move when the run goes on.
    emit(api, ev.slice(12, 14))
    expect(shown()).toBe('1')
    fireEvent.click(screen.getByTestId('follow-live'))
    expect(shown()).toBe('2')
    expect(screen.getByTestId('run-view').dataset.following).toBe('true')

    key('f')
    expect(screen.getByTestId('run-view').dataset.following).toBe('false')
    expect(screen.getByTestId('follow-live')).toBeTruthy()
    key('F')
    expect(screen.getByTestId('run-view').dataset.following).toBe('true')
    key('ArrowLeft')
    key('ArrowRight')
    expect(shown()).toBe('2')
    expect(screen.getByTestId('run-view').dataset.following).toBe('true')
  })

  it('the stage keys do nothing while typing in a text field', async () => {
    const { api } = await started()
    emit(api, twoIterationRun('run-1').slice(0, 12))
    fireEvent.click(screen.getByTestId('form-expand'))
    for (const field of [screen.getByTestId('prompt'), screen.getByTestId('max-iterations'), screen.getByTestId('language')]) {
      for (const k of ['ArrowLeft', 'f', 'p', 'Escape']) key(k, field)
    }
    expect(shown()).toBe('2')
    expect(screen.getByTestId('run-view').dataset.following).toBe('true')
    expect(document.documentElement.dataset.projector).toBe('off')
    expect(api.cancelRun).not.toHaveBeenCalled()
  })

  it('scrolling up while following holds the view', async () => {
    const { api } = await started()
    emit(api, twoIterationRun('run-1').slice(0, 12))
    act(() => {
      window.dispatchEvent(new WheelEvent('wheel', { deltaY: 120 }))
    })
    expect(screen.getByTestId('run-view').dataset.following).toBe('true')
    act(() => {
      window.dispatchEvent(new WheelEvent('wheel', { deltaY: -120 }))
    })
    expect(screen.getByTestId('run-view').dataset.following).toBe('false')
    expect(shown()).toBe('2')
    expect(screen.getByTestId('follow-live')).toBeTruthy()
  })

  it('P switches projector mode', async () => {
    const { stores } = renderApp()
    await screen.findByTestId('provider-fake')
    key('p')
    expect(document.documentElement.dataset.projector).toBe('on')
    expect(stores.settings.getState().projector).toBe(true)
    key('P')
    expect(document.documentElement.dataset.projector).toBe('off')
  })
})

describe('prose and code', () => {
  it('renders an answer in Markdown with its fenced code as a code block, no literal fences', async () => {
    const { api } = await started()
    const ev = twoIterationRun('run-1')
    const answer = 'A program that **divides**:\n\n```python\nprint(1/0)\n```\n'
    const gen = { ...ev[4], payload: { ...(ev[4] as Extract<RunEvent, { type: 'generated' }>).payload, content: answer } } as RunEvent
    emit(api, [...ev.slice(0, 4), gen])
    const stream = screen.getByTestId('stream-generation')
    expect(stream.querySelector('strong')!.textContent).toBe('divides')
    expect(stream.querySelector('pre.md-code')!.textContent).toBe('print(1/0)')
    expect(stream.textContent).not.toContain('```')
  })

  it('labels the code of a run that failed as its last attempt, not its final code', async () => {
    const { api } = await started()
    const ev = twoIterationRun('run-1')
    emit(api, [...ev.slice(0, 8), { ...finished('run-1', 9, 'limit_reached'), payload: { status: 'limit_reached', iterations: 1, final_code: 'print(1/0)\n', input_tokens: 0, output_tokens: 0, duration_ms: 10 } } as RunEvent])
    const panel = screen.getByTestId('code-panel')
    expect(panel.dataset.ending).toBe('last')
    expect(panel.querySelector('.card-title')!.textContent).toBe('Last attempt (#1)')
    expect(screen.queryByTestId('final-code')).toBeNull()
  })

  it('calls only the code that worked the final code', () => {
    expect(codeEnding('success', 'x', 'x', true)).toBe('final')
    expect(codeEnding('limit_reached', 'x', 'x', true)).toBe('last')
    expect(codeEnding('cancelled', '', 'x', true)).toBe('last')
    expect(codeEnding('error', '', 'x', true)).toBe('last')
    expect(codeEnding('success', 'x', 'x', false)).toBeUndefined()
    expect(codeEnding('cancelled', '', undefined, true)).toBeUndefined()
  })
})
