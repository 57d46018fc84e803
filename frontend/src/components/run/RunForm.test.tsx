// @vitest-environment happy-dom
// The run form before and after the configured defaults arrive, and the
// sandbox line under the prompt (limits, network, workspace commands).
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Defaults } from '../../api'
import { defaults, fakeApi, type FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'

afterEach(cleanup)

async function ready(api: FakeApi = fakeApi()) {
  const r = renderApp(api)
  await screen.findByTestId('provider-fake')
  return r
}

function withDefaults(d: Partial<Defaults>): FakeApi {
  const api = fakeApi()
  api.defaults.mockResolvedValue({ ...defaults, ...d })
  return api
}

function value(testId: string): string {
  return (screen.getByTestId(testId) as HTMLInputElement).value
}

describe('the run form while the configured defaults load', () => {
  it('never shows the built-in 5 iterations / 30 s: empty fields, then the configured values', async () => {
    let resolve!: (d: Defaults) => void
    const api = fakeApi()
    api.defaults.mockReturnValue(new Promise<Defaults>((r) => (resolve = r)))

    // Every value the two fields ever hold, property and attribute, from the first render on.
    const seen = { iterations: new Set<string>(), timeout: new Set<string>() }
    const record = () => {
      const it = document.querySelector<HTMLInputElement>('[data-testid=max-iterations]')
      const to = document.querySelector<HTMLInputElement>('[data-testid=timeout]')
      if (it) seen.iterations.add(it.value).add(it.getAttribute('value') ?? '')
      if (to) seen.timeout.add(to.value).add(to.getAttribute('value') ?? '')
    }
    const observer = new MutationObserver(record)
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })

    const { stores } = renderApp(api)
    record()
    // The providers and presets are in, the defaults are not: the form waits.
    await waitFor(() => expect(api.presets).toHaveBeenCalled())
    for (let i = 0; i < 3; i++) await act(async () => {})
    record()
    expect(value('max-iterations')).toBe('')
    expect(value('timeout')).toBe('')
    expect(screen.getByTestId('max-iterations')).toHaveProperty('disabled', true)
    expect(screen.getByTestId('max-iterations').getAttribute('placeholder')).toBe('…')
    expect(screen.getByTestId('reflect')).toHaveProperty('disabled', true)
    expect((screen.getByTestId('language') as HTMLSelectElement).value).toBe('')
    expect(screen.getByTestId('run')).toHaveProperty('disabled', true)
    expect(screen.getByTestId('sandbox-info').getAttribute('aria-busy')).toBe('true')
    expect(stores.composer.getState().defaultsLoaded).toBe(false)

    await act(async () => resolve({ ...defaults, max_iterations: 7, timeout_seconds: 45, reflect: true, language: 'sh' }))
    await waitFor(() => expect(value('max-iterations')).toBe('7'))
    await screen.findByTestId('provider-fake')
    record()
    observer.disconnect()
    expect(value('timeout')).toBe('45')
    expect(screen.getByTestId('reflect')).toHaveProperty('checked', true)
    expect((screen.getByTestId('language') as HTMLSelectElement).value).toBe('sh')
    expect(screen.getByTestId('max-iterations')).toHaveProperty('disabled', false)
    expect(screen.getByTestId('run')).toHaveProperty('disabled', false)

    // The observer saw the configured values arrive, and never the built-in ones.
    expect(seen.iterations).toContain('7')
    expect(seen.timeout).toContain('45')
    expect(seen.iterations).not.toContain('5')
    expect(seen.timeout).not.toContain('30')
  })

  it('falls back to the built-in values when the server cannot tell its defaults', async () => {
    const api = fakeApi()
    api.defaults.mockRejectedValue(new Error('404 page not found'))
    await ready(api)
    expect(value('max-iterations')).toBe('5')
    expect(value('timeout')).toBe('30')
    // And says nothing about a sandbox it knows nothing of.
    expect(screen.queryByTestId('sandbox-info')).toBeNull()
  })
})

describe('the iteration cap', () => {
  it('is the server’s: the field stops where the API does, and a larger value is sent as the cap', async () => {
    const api = withDefaults({ max_iterations_limit: 50 })
    await ready(api)
    await waitFor(() => expect(value('max-iterations')).toBe('3'))
    expect(screen.getByTestId('max-iterations').getAttribute('max')).toBe('50')
    fireEvent.change(screen.getByTestId('max-iterations'), { target: { value: '40' } })
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'fizzbuzz' } })
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ max_iterations: 40 })
  })

  it('is a student’s class cap when the server says so', async () => {
    const { stores } = await ready(withDefaults({ max_iterations: 3, max_iterations_limit: 4 }))
    await waitFor(() => expect(screen.getByTestId('max-iterations').getAttribute('max')).toBe('4'))
    // The browser refuses to submit 9 from the field; a value set otherwise is sent as the cap.
    act(() => stores.composer.getState().set({ maxIterations: 9 }))
    expect(stores.composer.getState().request('fake').max_iterations).toBe(4)
  })
})

describe('the sandbox line', () => {
  it('shows the isolation and the main limits, the rest in its description', async () => {
    await ready()
    const line = screen.getByTestId('sandbox-limits')
    const items = [...line.querySelectorAll('.sandbox-item')].map((e) => e.textContent)
    expect(items).toEqual(['namespace+cgroup', '1 GiB memory', '128 processes', '8 MiB output', 'no network'])
    expect(line.textContent).toMatch(/^Sandbox:namespace\+cgroup/)
    const details = line.getAttribute('title')!
    expect(details).toContain('files up to 32 MiB')
    expect(details).toContain('256 open files')
    expect(details).toContain('1 CPU.')
    // Screen readers get the details too.
    expect(line.querySelector('.sr-only')!.textContent).toContain(details)
    // No workspace command line in script mode.
    expect(screen.queryByTestId('sandbox-commands')).toBeNull()
  })

  it('turns "no network" into a warning while Allow network is ticked', async () => {
    await ready()
    const net = () => screen.getByTestId('sandbox-network')
    expect(net().textContent).toBe('no network')
    expect(net().classList.contains('sandbox-net-on')).toBe(false)
    fireEvent.click(screen.getByTestId('allow-network'))
    expect(net().textContent).toBe('⚠ network allowed')
    expect(net().classList.contains('sandbox-net-on')).toBe(true)
    expect(net().dataset.allowed).toBe('true')
    fireEvent.click(screen.getByTestId('allow-network'))
    expect(net().textContent).toBe('no network')
  })

  it('warns where the sandbox cannot keep the code off the network (Windows: level job)', async () => {
    await ready(withDefaults({ isolation: 'job', network_isolated: false }))
    const net = () => screen.getByTestId('sandbox-network')
    expect(screen.getByTestId('sandbox-isolation').textContent).toBe('job')
    expect(screen.getByTestId('sandbox-isolation').title).toContain('no file or network isolation')
    expect(net().textContent).toBe('⚠ network not isolated on this system')
    expect(net().classList.contains('sandbox-net-on')).toBe(true)
    fireEvent.click(screen.getByTestId('allow-network'))
    expect(net().textContent).toBe('⚠ network allowed')
  })

  it('shows the configured limits, not built-in ones', async () => {
    await ready(withDefaults({ limits: { memory_bytes: 1.5 * (1 << 30), processes: 1, output_bytes: 512 << 10, file_size_bytes: 1 << 20, open_files: 64, cpus: 2 }, isolation: 'landlock' }))
    const items = [...screen.getByTestId('sandbox-limits').querySelectorAll('.sandbox-item')].map((e) => e.textContent)
    expect(items).toEqual(['landlock', '1.5 GiB memory', '1 process', '512 KiB output', 'no network'])
    expect(screen.getByTestId('sandbox-limits').getAttribute('title')).toContain('2 CPUs')
  })

  it('warns when generated code cannot run on this machine', async () => {
    // The first-run panel says how to install Python; the user goes on without it.
    renderApp(withDefaults({ isolation: '' }))
    fireEvent.click(await screen.findByTestId('first-run-anyway'))
    await screen.findByTestId('provider-fake')
    expect(screen.queryByTestId('sandbox-limits')).toBeNull()
    expect(screen.getByTestId('sandbox-unavailable').textContent).toContain('Sandbox not available')
  })

  it('adds the command time limit in workspace mode', async () => {
    await ready()
    fireEvent.click(screen.getByTestId('mode-workspace'))
    expect(screen.getByTestId('sandbox-limits')).toBeTruthy()
    expect(screen.getByTestId('sandbox-commands').textContent).toBe('Validation commands: up to 5 min each, in the sandbox.')
    expect(screen.queryByTestId('sandbox-unsandboxed')).toBeNull()
  })

  it('warns that workspace commands run unsandboxed when loopforge.yml says so', async () => {
    await ready(withDefaults({ commands_sandboxed: false, command_timeout_seconds: 600 }))
    // Script mode: generated code is still sandboxed.
    expect(screen.getByTestId('sandbox-limits')).toBeTruthy()
    expect(screen.queryByTestId('sandbox-unsandboxed')).toBeNull()
    fireEvent.click(screen.getByTestId('mode-workspace'))
    const warn = screen.getByTestId('sandbox-unsandboxed')
    expect(warn.classList.contains('notice-warn')).toBe(true)
    expect(warn.textContent).toContain('Validation commands run unsandboxed, as you')
    expect(warn.textContent).toContain('Up to 10 min each.')
    // None of the sandbox's limits apply to them: no limits line that says otherwise.
    expect(screen.queryByTestId('sandbox-limits')).toBeNull()
  })

  it('speaks Portuguese', async () => {
    const { stores } = await ready()
    act(() => stores.settings.getState().setLang('pt'))
    await waitFor(() => expect(screen.getByTestId('run').textContent).toBe('Executar'))
    const line = screen.getByTestId('sandbox-limits')
    expect([...line.querySelectorAll('.sandbox-item')].map((e) => e.textContent)).toEqual([
      'namespace+cgroup',
      '1 GiB de memória',
      '128 processos',
      '8 MiB de saída',
      'sem rede',
    ])
    fireEvent.click(screen.getByTestId('allow-network'))
    expect(screen.getByTestId('sandbox-network').textContent).toBe('⚠ rede permitida')
    fireEvent.click(screen.getByTestId('mode-workspace'))
    expect(within(screen.getByTestId('sandbox-info')).getByTestId('sandbox-commands').textContent).toBe('Comandos de validação: até 5 min cada, na sandbox.')
  })
})

describe('the prompt limit', () => {
  it('counts the prompt near the API limit and refuses a longer one before sending it', async () => {
    const api = withDefaults({ max_prompt_bytes: 100 })
    await ready(api)
    await waitFor(() => expect(screen.getByTestId('run')).toHaveProperty('disabled', false))
    const prompt = screen.getByTestId('prompt')
    fireEvent.change(prompt, { target: { value: 'short' } })
    expect(screen.queryByTestId('prompt-size')).toBeNull()
    // 76 bytes in 38 characters: near the limit, counted.
    fireEvent.change(prompt, { target: { value: 'é'.repeat(38) } })
    expect(screen.getByTestId('prompt-size').textContent).toBe('76 B of 100 B (38 characters)')
    // 102 bytes: over, said in bytes and characters, and never sent.
    fireEvent.change(prompt, { target: { value: 'é'.repeat(51) } })
    expect(screen.getByTestId('prompt-size').textContent).toContain('102 bytes (51 characters)')
    fireEvent.click(screen.getByTestId('run'))
    await act(async () => {})
    expect(api.startRun).not.toHaveBeenCalled()
    expect(screen.getAllByText(/The prompt is too long: 102 bytes \(51 characters\); a run takes at most 100 B \(100 bytes\)/).length).toBeGreaterThan(0)
    // Back under the limit, it runs.
    fireEvent.change(prompt, { target: { value: 'é'.repeat(50) } })
    fireEvent.click(screen.getByTestId('run'))
    await waitFor(() => expect(api.startRun).toHaveBeenCalled())
  })
})
