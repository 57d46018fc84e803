import { describe, expect, it } from 'vitest'
import { fakeApi, memoryStorage, missingKeyProvider, readyProvider } from '../test/fakeApi'
import { strings } from '../strings'
import { createStores } from './index'
import { chosenProviders, launch, launchInputs, stopShown } from './launch'

async function ready() {
  const api = fakeApi()
  const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn() })
  await stores.providers.getState().load()
  return { api, stores }
}

describe('chosenProviders', () => {
  const other = { ...readyProvider, name: 'other', default: false }
  it('takes the ready ticks, else the configured default', () => {
    expect(chosenProviders(['other', 'missing'], [readyProvider, other, missingKeyProvider])).toEqual({ ticked: ['other'], chosen: ['other'] })
    expect(chosenProviders(['missing'], [readyProvider, other, missingKeyProvider], 'other')).toEqual({ ticked: [], chosen: ['other'] })
    expect(chosenProviders([], [missingKeyProvider])).toEqual({ ticked: [], chosen: [] })
  })
})

describe('launch', () => {
  it('refuses with a hint, and says what the hint was about', async () => {
    const { api, stores } = await ready()
    stores.composer.getState().set({ prompt: '   ' })
    expect(await launch(stores)).toEqual({ hint: strings.run.needPrompt, inputs: launchInputs('   ', ['fake'], 'script', '') })
    stores.composer.getState().set({ prompt: 'x'.repeat((256 << 10) + 1) })
    expect(await launch(stores)).toMatchObject({ hint: strings.run.promptTooLong((256 << 10) + 1, (256 << 10) + 1, 256 << 10) })
    stores.composer.getState().set({ prompt: 'fizzbuzz', mode: 'workspace' })
    expect(await launch(stores)).toMatchObject({ hint: strings.run.needWorkdir })
    // A student's folder is the server's.
    expect(await launch(stores, { student: {} })).toMatchObject({ id: 'run-1' })
    expect(api.startRun).toHaveBeenCalledTimes(1)
  })

  it('starts one run with the workspace folder, and uses up the network opt-in', async () => {
    const { api, stores } = await ready()
    stores.workdir.setState({ path: '/proj' })
    stores.composer.getState().set({ prompt: 'fix it', mode: 'workspace', allowNetwork: true })
    expect(await launch(stores)).toMatchObject({ id: 'run-1' })
    expect(api.startRun).toHaveBeenCalledWith(expect.objectContaining({ prompt: 'fix it', provider: 'fake', workdir: '/proj', allow_network: true }))
    expect(stores.composer.getState().allowNetwork).toBe(false)
    expect(stores.runs.getState().activeRunId).toBe('run-1')
  })

  it("drops a student's model and tests", async () => {
    const { api, stores } = await ready()
    stores.composer.getState().set({ prompt: 'p', tests: 'cases: []' })
    stores.composer.getState().pickModel('fake', 'big-model')
    await launch(stores, { student: { assignedTests: true } })
    const req = api.startRun.mock.calls[0][0]
    expect(req).not.toHaveProperty('model')
    expect(req).not.toHaveProperty('tests')
  })

  it('compares when several providers are ticked, and Stop stops the comparison', async () => {
    const { api, stores } = await ready()
    api.providers.mockResolvedValue([readyProvider, { ...readyProvider, name: 'other', default: false }])
    await stores.providers.getState().refresh()
    stores.composer.getState().set({ prompt: 'p', providers: ['fake', 'other'] })
    expect(await launch(stores)).toMatchObject({ id: 'cmp-1' })
    expect(api.startCompare).toHaveBeenCalledWith(expect.objectContaining({ providers: ['fake', 'other'] }))
    stopShown(stores)
    expect(api.cancelRun).toHaveBeenCalledTimes(2)
  })

  it('reports a failed start', async () => {
    const { api, stores } = await ready()
    api.startRun.mockRejectedValueOnce(new Error('boom'))
    stores.composer.getState().set({ prompt: 'p' })
    expect(await launch(stores)).toMatchObject({ failed: true })
    expect(stores.runs.getState().startError).toMatchObject({ message: 'boom' })
  })
})
