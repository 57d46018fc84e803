// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import type { SessionSummary } from '../../api'
import { fakeApi, sessionDetail, type FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'

const summaries: SessionSummary[] = [
  {
    id: 'sess-1',
    title: 'Print a greeting',
    prompt: 'Print a greeting',
    mode: 'script',
    kind: 'script',
    workdir: '',
    created_at: '2026-11-21T10:00:00Z',
    updated_at: '2026-11-21T10:01:00Z',
    runs: [{ id: 'run-old', provider: 'fake', status: 'success', iterations: 2 }],
  },
  {
    id: 'sess-2',
    title: 'Linked lists',
    prompt: 'Linked lists',
    mode: 'script',
    kind: 'script',
    workdir: '',
    created_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-20T10:01:00Z',
    runs: [{ id: 'run-2', provider: 'fake', status: 'limit_reached', iterations: 5 }],
  },
]

let api: FakeApi

beforeEach(() => {
  api = fakeApi()
  api.sessions.mockImplementation(async (q: string) => summaries.filter((s) => s.title.toLowerCase().includes(q.toLowerCase())))
  api.session.mockResolvedValue(sessionDetail())
})
afterEach(cleanup)

async function openHistory() {
  const r = renderApp(api)
  fireEvent.click(screen.getByTestId('nav-history'))
  await waitFor(() => expect(screen.getAllByTestId('session')).toHaveLength(2))
  return r
}

describe('History', () => {
  it('lists sessions with their runs and searches them', async () => {
    await openHistory()
    expect(screen.getAllByTestId('session')[1].textContent).toContain('fake · limit reached')
    fireEvent.change(screen.getByTestId('history-search'), { target: { value: 'linked' } })
    await waitFor(() => expect(screen.getAllByTestId('session')).toHaveLength(1))
    expect(api.sessions).toHaveBeenLastCalledWith('linked', 200)
    fireEvent.change(screen.getByTestId('history-search'), { target: { value: 'zzz' } })
    expect(await screen.findByText('No session matches “zzz”.')).toBeTruthy()
  })

  it('dates each session: today, yesterday, else the date', async () => {
    // The browser's zone: the days are built in it, so any TZ gives the same words.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(2026, 10, 21, 15, 0) })
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const at = (day: number, h: number, m: number) => new Date(2026, 10, day, h, m).toISOString()
    api.sessions.mockResolvedValue([
      { ...summaries[0], id: 'a', updated_at: at(21, 3, 26) },
      { ...summaries[0], id: 'b', updated_at: at(20, 14, 2) },
      { ...summaries[0], id: 'c', updated_at: at(14, 3, 26) },
      { ...summaries[0], id: 'd', updated_at: at(14, 3, 29) },
    ])
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-history'))
    await waitFor(() => expect(screen.getAllByTestId('session')).toHaveLength(4))
    const text = screen.getAllByTestId('session').map((e) => e.textContent ?? '')
    expect(text[0]).toContain('today 03:26')
    expect(text[1]).toContain('yesterday 02:02')
    expect(text[2]).toMatch(/Nov 14 03:26/)
    expect(text[3]).toMatch(/Nov 14 03:29/)
  })

  it('shows a failed list with Retry', async () => {
    api.sessions.mockRejectedValueOnce(new Error('database is locked'))
    renderApp(api)
    fireEvent.click(screen.getByTestId('nav-history'))
    expect((await screen.findByText(/Could not load the history/)).parentElement!.textContent).toContain('database is locked')
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(screen.getAllByTestId('session')).toHaveLength(2))
  })

  it('opens a session and replays its run step by step', async () => {
    await openHistory()
    fireEvent.click(screen.getAllByTestId('session')[0])
    await screen.findByTestId('session-detail')
    expect(api.session).toHaveBeenCalledWith('sess-1')
    expect(screen.getByTestId('replay-step').textContent).toBe('Step 1 of 2')
    expect(screen.getByTestId('stderr').textContent).toContain('ZeroDivisionError')
    expect(screen.getByTestId('stream-reflection').textContent).toContain('It divides by zero.')
    expect((screen.getByTestId('step-prev') as HTMLButtonElement).disabled).toBe(true)
    fireEvent.click(screen.getByTestId('step-next'))
    expect(screen.getByTestId('replay-step').textContent).toBe('Step 2 of 2')
    expect(screen.getByTestId('stdout').textContent).toBe('hi\n')
    act(() => void window.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft' })))
    expect(screen.getByTestId('replay-step').textContent).toBe('Step 1 of 2')
  })

  it('replays a run with the pictures its program left, fetched once, as <img>', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgo='
    api.call.mockImplementation(async (name: string, input: { run_id: string; iteration: number; name: string }) => {
      if (name === 'Me') return { role: 'instructor' }
      if (name !== 'Image') throw new Error(`unexpected ${name}`)
      return { name: input.name, mime: 'image/png', width: 64, height: 48, data_url: png }
    })
    await openHistory()
    fireEvent.click(screen.getAllByTestId('session')[0])
    await screen.findByTestId('session-detail')
    // The first attempt drew nothing.
    expect(screen.queryByTestId('pictures')).toBeNull()
    fireEvent.click(screen.getByTestId('step-next'))
    const fig = await screen.findByTestId('picture')
    const img = await waitFor(() => fig.querySelector('img')!)
    expect(img.getAttribute('src')).toBe(png)
    expect(img.getAttribute('alt')).toBe('figure-1.png')
    expect(fig.textContent).toContain('figure-1.png')
    expect(api.call).toHaveBeenCalledWith('Image', { run_id: 'run-old', iteration: 2, name: 'figure-1.png' })
    // Stepping away and back shows it again without fetching it again.
    fireEvent.click(screen.getByTestId('step-prev'))
    fireEvent.click(screen.getByTestId('step-next'))
    await waitFor(() => expect(screen.getByTestId('picture').querySelector('img')?.getAttribute('src')).toBe(png))
    expect(api.call.mock.calls.filter(([name]) => name === 'Image')).toHaveLength(1)
  })

  it('says so when a picture cannot be loaded, and never renders what is not an image', async () => {
    api.call.mockResolvedValue({ name: 'figure-1.png', mime: 'text/html', width: 0, height: 0, data_url: 'data:text/html;base64,PHNjcmlwdD4=' })
    await openHistory()
    fireEvent.click(screen.getAllByTestId('session')[0])
    await screen.findByTestId('session-detail')
    fireEvent.click(screen.getByTestId('step-next'))
    await screen.findByText('This picture could not be loaded.')
    expect(screen.getByTestId('picture').querySelector('img')).toBeNull()
  })

  it('shows why a session could not be opened', async () => {
    api.session.mockRejectedValueOnce(new Error('session sess-1 not found'))
    await openHistory()
    fireEvent.click(screen.getAllByTestId('session')[0])
    expect((await screen.findByText(/Could not open this session/)).parentElement!.textContent).toContain('session sess-1 not found')
  })

  it('continues a session with a follow-up prompt on its provider', async () => {
    await openHistory()
    fireEvent.click(screen.getAllByTestId('session')[0])
    await screen.findByTestId('session-detail')
    fireEvent.change(screen.getByTestId('follow-up'), { target: { value: 'Now greet twice' } })
    fireEvent.click(screen.getByTestId('continue'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ session_id: 'sess-1', prompt: 'Now greet twice', provider: 'fake' })
    // The new run shows in the Run panel, the form folded to one line above it.
    expect((await screen.findByTestId('stage-prompt')).textContent).toBe('Now greet twice')
    expect(screen.getByTestId('run-view').dataset.runId).toBe('run-1')
  })

  it('deletes only after confirmation', async () => {
    await openHistory()
    fireEvent.click(screen.getAllByTestId('session')[0])
    await screen.findByTestId('session-detail')
    fireEvent.click(screen.getByTestId('delete'))
    fireEvent.click(screen.getByRole('button', { name: 'Keep' }))
    expect(api.deleteSession).not.toHaveBeenCalled()
    fireEvent.click(screen.getByTestId('delete'))
    fireEvent.click(screen.getByTestId('confirm-delete'))
    await waitFor(() => expect(screen.getAllByTestId('session')).toHaveLength(1))
    expect(api.deleteSession).toHaveBeenCalledWith('sess-1')
    expect(screen.queryByTestId('session-detail')).toBeNull()
  })
})
