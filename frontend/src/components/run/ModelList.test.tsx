// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { ApiError } from '../../api'
import type { ProviderStatus } from '../../api/types'
import { createStores, StoresProvider } from '../../stores'
import { fakeApi, memoryStorage, readyProvider } from '../../test/fakeApi'
import { errorText, setLanguage } from '../../strings'
import { ProviderPicker } from './ProviderPicker'

afterEach(cleanup)

const claude: ProviderStatus = { name: 'anthropic', kind: 'anthropic', model: 'claude-sonnet-5', default: false, available: true, timeout_seconds: 600 }
const codex: ProviderStatus = { name: 'codex', kind: 'codex', model: '', default: false, available: true, timeout_seconds: 600 }

const fakeModels = [
  { id: 'fake-model', name: 'Fake' },
  { id: 'fake-model-2', name: 'Fake Two' },
]

function renderPicker(list: ProviderStatus[], opts: { models?: boolean; value?: string[]; answer?: (name: string) => Promise<unknown> } = {}) {
  const api = fakeApi()
  api.providers.mockResolvedValue(list)
  api.call.mockImplementation(async (op: string, input: { name: string }) => {
    if (op === 'ProviderModels') return opts.answer ? opts.answer(input.name) : { provider: input.name, models: fakeModels }
    throw new Error(`unexpected call ${op}`)
  })
  const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn(), lang: 'en' })
  render(
    <StoresProvider stores={stores}>
      <ProviderPicker value={opts.value ?? []} onToggle={() => {}} models={opts.models ?? true} />
    </StoresProvider>,
  )
  return { api, stores }
}

describe('ProviderPicker models list', () => {
  it('asks the API for a provider’s models when opened, and a pick runs that provider with it', async () => {
    const { api, stores } = renderPicker([readyProvider, claude, codex])
    await act(() => stores.providers.getState().load())
    // The API kinds have a list; a coding CLI does not.
    const row = screen.getByTestId('provider-fake')
    expect(within(screen.getByTestId('provider-codex')).queryByRole('button', { name: 'Models' })).toBeNull()
    expect(api.call).not.toHaveBeenCalledWith('ProviderModels', expect.anything())

    fireEvent.click(within(row).getByRole('button', { name: 'Models' }))
    expect(within(row).getByRole('button', { name: 'Models' }).getAttribute('aria-expanded')).toBe('true')
    const list = await screen.findByTestId('models-fake')
    await waitFor(() => expect(within(list).getByRole('status').textContent).toBe('2 models this key can use'))
    expect(api.call).toHaveBeenCalledWith('ProviderModels', { name: 'fake' })
    // The profile's model is the current one.
    expect(within(list).getByRole('button', { name: /^fake-model Fake$/ }).getAttribute('aria-pressed')).toBe('true')

    fireEvent.click(within(list).getByRole('button', { name: /fake-model-2/ }))
    expect(stores.composer.getState().models).toEqual({ fake: 'fake-model-2' })
    expect(screen.getByTestId('provider-model-fake').textContent).toBe('fake-model-2')
    expect(within(row).getByText('picked')).toBeTruthy()
    expect(stores.composer.getState().request('fake').model).toBe('fake-model-2')
    // Another provider, and a comparison, keep the profiles' own models.
    expect(stores.composer.getState().request('anthropic').model).toBeUndefined()
    expect(stores.composer.getState().compareRequest(['fake', 'anthropic']).model).toBeUndefined()

    fireEvent.click(within(list).getByRole('button', { name: "Back to the profile's model (fake-model)" }))
    expect(stores.composer.getState().models).toEqual({})
    expect(screen.getByTestId('provider-model-fake').textContent).toBe('fake-model')
    expect(stores.composer.getState().request('fake').model).toBeUndefined()
  })

  it('says why the list could not be had, in the UI’s language', async () => {
    setLanguage('pt')
    onTestFinished(() => setLanguage('en'))
    const { stores } = renderPicker([claude], {
      answer: async () => {
        throw new ApiError('anthropic: the API key was rejected (HTTP 401)', 502, 'provider.auth', { provider: 'anthropic', status: '401', env: 'ANTHROPIC_API_KEY', message: 'invalid x-api-key' })
      },
    })
    await act(() => stores.providers.getState().load())
    fireEvent.click(screen.getByRole('button', { name: 'Modelos' }))
    const alert = await within(await screen.findByTestId('models-anthropic')).findByRole('alert')
    expect(alert.textContent).toBe('Não foi possível listar os modelos: anthropic: a chave de API foi recusada (HTTP 401); verifique ANTHROPIC_API_KEY. Ele disse: invalid x-api-key')
  })

  it('is not offered to a student, and says when a comparison ignores a pick', async () => {
    const { stores } = renderPicker([readyProvider, claude], { models: false })
    await act(() => stores.providers.getState().load())
    expect(screen.queryByRole('button', { name: 'Models' })).toBeNull()
    cleanup()

    const second = renderPicker([readyProvider, claude], { value: ['fake', 'anthropic'] })
    await act(() => second.stores.providers.getState().load())
    expect(screen.queryByTestId('model-alone')).toBeNull()
    act(() => second.stores.composer.getState().pickModel('anthropic', 'claude-haiku-4-5-20251001'))
    expect(screen.getByTestId('model-alone').textContent).toContain('a comparison uses each profile')
  })
})

describe('provider.model_not_found', () => {
  const params = { provider: 'gemini-api', model: 'gemini-2.5-flash', status: '404', models: 'gemini-3.7-flash, gemini-3.8-flash', listed: 'true', message: 'models/gemini-2.5-flash is not found' }

  it('names the model and the models the key can use, in both languages', () => {
    expect(errorText('provider.model_not_found', params, '')).toBe(
      'gemini-api: the model gemini-2.5-flash does not exist or is no longer offered to this key (HTTP 404). Models this key can use: gemini-3.7-flash, gemini-3.8-flash. ' +
        'Pick another with Models beside the provider, or set model: in the “gemini-api” profile of loopforge.yml. It said: models/gemini-2.5-flash is not found',
    )
    setLanguage('pt')
    onTestFinished(() => setLanguage('en'))
    expect(errorText('provider.model_not_found', params, '')).toBe(
      'gemini-api: o modelo gemini-2.5-flash não existe ou não é mais oferecido a esta chave (HTTP 404). Modelos que esta chave pode usar: gemini-3.7-flash, gemini-3.8-flash. ' +
        'Escolha outro em Modelos, ao lado do provedor, ou defina model: no perfil “gemini-api” do loopforge.yml. Ele disse: models/gemini-2.5-flash is not found',
    )
  })

  it('says how to get the list when it could not be had, and cuts a long one', () => {
    const unlisted = errorText('provider.model_not_found', { ...params, models: '', listed: '', message: '' }, '')
    expect(unlisted).toContain('could not be listed just now (see Models beside the provider, or run loopforge providers --models)')
    const many = Array.from({ length: 45 }, (_, i) => `m${i}`).join(', ')
    const long = errorText('provider.model_not_found', { ...params, models: many, message: '' }, '')
    expect(long).toContain('m39 … and 5 more.')
    expect(long).not.toContain('m40')
  })
})
