// @vitest-environment happy-dom
// The first run: with no provider ready (or no Python), the Run tab shows
// what to do next (the .env file's real path, the variables, Ollama, Python
// for this OS) in the UI's language, and Check again has the server read its
// configuration anew and lists the providers again.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ProviderStatus } from '../../api'
import type { Setup } from '../../api/gen/wire'
import { ApiError } from '../../api'
import { missing } from '../../stores/setup'
import { inDir } from './FirstRunSteps'
import { defaults, fakeApi, missingKeyProvider, readyProvider, type FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'

afterEach(cleanup)

const ollama: ProviderStatus = {
  name: 'ollama',
  kind: 'openai',
  model: 'qwen2.5-coder:7b',
  base_url: 'http://localhost:11434/v1',
  default: false,
  available: false,
  reason: 'cannot reach http://localhost:11434/v1: no server answers there',
  timeout_seconds: 600,
}

const linuxSetup: Setup = {
  os: 'linux',
  config_dir: '/home/ana/.config/loopforge',
  env_file: '/home/ana/.config/loopforge/.env',
  env_file_exists: false,
  config_file: '',
  code_runs: true,
  python_missing: false,
}

/** An Api whose machine has no provider ready; Setup and ReloadConfig answer with setup (or the error). */
function newMachine(setup: Setup = linuxSetup, reload: Setup | Error = setup): FakeApi {
  const api = fakeApi()
  api.providers.mockResolvedValue([missingKeyProvider, ollama])
  api.call.mockImplementation(async (name: string) => {
    if (name === 'Me') return { role: 'instructor' }
    if (name === 'Setup') return setup
    if (name === 'ReloadConfig') {
      if (reload instanceof Error) throw reload
      return reload
    }
    throw new Error(`call ${name} is not faked`)
  })
  return api
}

function calls(api: FakeApi, name: string): number {
  return api.call.mock.calls.filter((c: unknown[]) => c[0] === name).length
}

describe('first run', () => {
  it('says where the .env goes, which variable, and how to use Ollama', async () => {
    renderApp(newMachine())
    const panel = await screen.findByTestId('first-run')
    expect(panel.dataset.missing).toBe('provider')
    await within(panel).findByText('/home/ana/.config/loopforge', { selector: 'code' })
    expect(screen.getByTestId('env-file').textContent).toContain('# /home/ana/.config/loopforge/.env')
    expect(screen.getByTestId('first-run-keys').textContent).toContain('Create the text file /home/ana/.config/loopforge/.env')
    expect(screen.getByTestId('key-OPENAI_API_KEY').textContent).toContain('openai')
    expect(screen.getByTestId('ollama-pull').textContent).toBe('ollama pull qwen2.5-coder:7b')
    expect(screen.getByTestId('first-run-ollama').textContent).toContain('/home/ana/.config/loopforge/loopforge.yml')
    // No Python section when Python is there; no run form yet.
    expect(screen.queryByTestId('first-run-python')).toBeNull()
    expect(screen.queryByTestId('run')).toBeNull()
  })

  it('Check again reads the configuration anew and opens the run form once a provider is ready', async () => {
    const api = newMachine(linuxSetup, { ...linuxSetup, env_file_exists: true })
    renderApp(api)
    await screen.findByTestId('first-run')
    // The key the user just wrote into .env makes the server list a ready provider.
    api.providers.mockResolvedValue([readyProvider, missingKeyProvider, ollama])
    fireEvent.click(screen.getByTestId('check-again'))
    await screen.findByTestId('provider-fake')
    expect(calls(api, 'ReloadConfig')).toBe(1)
    expect(screen.queryByTestId('first-run')).toBeNull()
    // The reload came before the list that found the key.
    const reloadAt = api.call.mock.invocationCallOrder[api.call.mock.calls.findIndex((c: unknown[]) => c[0] === 'ReloadConfig')]
    expect(api.providers.mock.invocationCallOrder.at(-1)!).toBeGreaterThan(reloadAt)
  })

  it('says so when a check finds nothing ready yet', async () => {
    const api = newMachine()
    renderApp(api)
    await screen.findByTestId('first-run')
    fireEvent.click(screen.getByTestId('check-again'))
    expect((await screen.findByTestId('still-not-ready')).textContent).toContain('still nothing ready')
    expect(screen.getByTestId('first-run')).toBeTruthy()
  })

  it('shows why a check failed (a loopforge.yml that no longer reads)', async () => {
    const bad = new ApiError('loopforge.yml: line 1: unknown key "provder" (did you mean provider?)', 400)
    renderApp(newMachine(linuxSetup, bad))
    await screen.findByTestId('first-run')
    fireEvent.click(screen.getByTestId('check-again'))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Could not check again')
    expect(alert.textContent).toContain('unknown key "provder"')
  })

  it('speaks Portuguese', async () => {
    const { stores } = renderApp(newMachine())
    await screen.findByTestId('first-run')
    act(() => stores.settings.getState().setLang('pt'))
    const panel = await screen.findByTestId('first-run')
    expect(panel.textContent).toContain('Boas-vindas ao loopforge')
    expect(panel.textContent).toContain('Crie o arquivo de texto /home/ana/.config/loopforge/.env')
    expect(within(panel).getByTestId('check-again').textContent).toBe('Verificar de novo')
    expect(panel.textContent).not.toContain('Check again')
  })

  it('tells how to install Python on this OS, and lets a ready machine go on without it', async () => {
    const api = fakeApi()
    api.defaults.mockResolvedValue({ ...defaults, isolation: '' })
    const win: Setup = { ...linuxSetup, os: 'windows', config_dir: 'C:\\Users\\ana\\AppData\\Roaming\\loopforge', code_runs: false, python_missing: true, problem: 'no python' }
    api.call.mockImplementation(async (name: string) => (name === 'Me' ? { role: 'instructor' } : win))
    renderApp(api)
    const panel = await screen.findByTestId('first-run')
    expect(panel.dataset.missing).toBe('python')
    const python = await screen.findByTestId('first-run-python')
    await waitFor(() => expect(python.dataset.os).toBe('windows'))
    expect(python.textContent).toContain('winget install Python.Python.3.12')
    expect(python.textContent).not.toContain('apt install')
    // A provider is ready: no key steps.
    expect(screen.queryByTestId('first-run-keys')).toBeNull()
    fireEvent.click(screen.getByTestId('first-run-anyway'))
    await screen.findByTestId('run')
  })

  it('names another reason code cannot run as it is', async () => {
    const api = fakeApi()
    api.defaults.mockResolvedValue({ ...defaults, isolation: '' })
    const broken: Setup = { ...linuxSetup, code_runs: false, python_missing: false, problem: 'sandbox: temp root /nope: no such file or directory' }
    api.call.mockImplementation(async (name: string) => (name === 'Me' ? { role: 'instructor' } : broken))
    renderApp(api)
    const python = await screen.findByTestId('first-run-python')
    await waitFor(() => expect(python.textContent).toContain('sandbox: temp root /nope'))
    expect(python.textContent).not.toContain('apt install')
  })
})

describe('missing', () => {
  it('names what keeps a machine from a first run', () => {
    expect(missing(false, [], null)).toBeNull()
    expect(missing(true, [readyProvider], defaults)).toBeNull()
    expect(missing(true, [missingKeyProvider], defaults)).toBe('provider')
    expect(missing(true, [], defaults)).toBe('provider')
    expect(missing(true, [readyProvider], { ...defaults, isolation: '' })).toBe('python')
    expect(missing(true, [missingKeyProvider], { ...defaults, isolation: '' })).toBe('both')
    // An older server without defaults: Python is not in doubt.
    expect(missing(true, [readyProvider], null)).toBeNull()
  })

  it('joins file names with the folder’s own separator', () => {
    expect(inDir('/home/ana/.config/loopforge', 'loopforge.yml')).toBe('/home/ana/.config/loopforge/loopforge.yml')
    expect(inDir('C:\\Users\\ana\\AppData\\Roaming\\loopforge', 'loopforge.yml')).toBe('C:\\Users\\ana\\AppData\\Roaming\\loopforge\\loopforge.yml')
  })
})
