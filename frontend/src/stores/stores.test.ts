import { describe, expect, it, vi } from 'vitest'
import { fakeApi, memoryStorage, missingKeyProvider, presets, readyProvider, sessionDetail } from '../test/fakeApi'
import { createComposerStore } from './composer'
import { createStores } from './index'
import { createHistoryStore } from './history'
import { createProvidersStore, defaultProvider } from './providers'
import { createSettingsStore, effectiveTheme } from './settings'
import { createWorkdirStore } from './workdir'

describe('providers store', () => {
  it('loads providers and presets together', async () => {
    const api = fakeApi()
    const s = createProvidersStore(api)
    await s.getState().load()
    expect(s.getState()).toMatchObject({ loaded: true, loading: false, error: null, providers: [readyProvider, missingKeyProvider], presets })
  })

  it('keeps the error to show with a retry', async () => {
    const api = fakeApi()
    api.providers.mockRejectedValueOnce(new Error('connection refused'))
    const s = createProvidersStore(api)
    await s.getState().load()
    expect(s.getState()).toMatchObject({ loaded: false, error: { message: 'connection refused' } })
    await s.getState().load()
    expect(s.getState()).toMatchObject({ loaded: true, error: null })
  })

  it('picks the default provider when ready, else the first ready one', () => {
    expect(defaultProvider([missingKeyProvider, readyProvider])).toBe('fake')
    expect(defaultProvider([{ ...readyProvider, name: 'a', default: false }, { ...missingKeyProvider, default: true }])).toBe('a')
    expect(defaultProvider([missingKeyProvider])).toBeNull()
  })
})

describe('composer store', () => {
  it('builds the run request from the form, clamping silly numbers', () => {
    const c = createComposerStore(memoryStorage())
    c.getState().set({ prompt: '  write fizzbuzz \n', maxIterations: 0, timeoutSeconds: 99999, reflect: false, language: 'sh' })
    expect(c.getState().request('fake')).toEqual({
      prompt: 'write fizzbuzz',
      provider: 'fake',
      max_iterations: 1,
      timeout_seconds: 600,
      reflect: false,
      language: 'sh',
    })
    expect(c.getState().request(null, 'sess-1', 'and now in English')).toMatchObject({ prompt: 'and now in English', session_id: 'sess-1' })
    expect(c.getState().request(null)).not.toHaveProperty('provider')
  })

  it('keeps the prompt and providers across a reload, ignoring garbage, but not the loop settings', () => {
    const kv = memoryStorage()
    createComposerStore(kv).getState().set({ prompt: 'kept', maxIterations: 7, providers: ['fake', 'other'] })
    expect(createComposerStore(kv).getState()).toMatchObject({ prompt: 'kept', maxIterations: 5, providers: ['fake', 'other'] })
    kv.setItem('loopforge.composer', '{"provider":"old"}')
    expect(createComposerStore(kv).getState().providers).toEqual(['old'])
    kv.setItem('loopforge.composer', '{"maxIterations":"lots","language":"cobol"')
    expect(createComposerStore(kv).getState()).toMatchObject({ maxIterations: 5, language: 'python', prompt: '' })
  })

  it('starts from the configured defaults once the providers load', async () => {
    const api = fakeApi()
    api.defaults.mockResolvedValue({ provider: 'fake', max_iterations: 3, reflect: false, timeout_seconds: 12, language: 'sh' })
    const stores = createStores(api, { storage: memoryStorage() })
    expect(stores.composer.getState().defaultsLoaded).toBe(false)
    await stores.providers.getState().load()
    expect(stores.composer.getState()).toMatchObject({ defaultsLoaded: true, maxIterations: 3, reflect: false, timeoutSeconds: 12, language: 'sh' })
    expect(stores.composer.getState().request('fake')).toMatchObject({ max_iterations: 3, reflect: false, timeout_seconds: 12, language: 'sh' })
    stores.runs.getState().dispose()
  })

  it('still works when the server cannot tell its defaults', async () => {
    const api = fakeApi()
    api.defaults.mockRejectedValue(new Error('404'))
    const stores = createStores(api, { storage: memoryStorage() })
    await stores.providers.getState().load()
    expect(stores.providers.getState().loaded).toBe(true)
    expect(stores.composer.getState()).toMatchObject({ defaultsLoaded: true, maxIterations: 5, reflect: true, timeoutSeconds: 30 })
    stores.runs.getState().dispose()
  })

  it('builds a comparison request and toggles providers', () => {
    const c = createComposerStore(memoryStorage())
    c.getState().set({ prompt: 'p' })
    c.getState().toggleProvider('a', true)
    c.getState().toggleProvider('b', true)
    c.getState().toggleProvider('a', false)
    c.getState().toggleProvider('c', true)
    expect(c.getState().providers).toEqual(['b', 'c'])
    expect(c.getState().compareRequest(['b', 'c'])).toMatchObject({ prompt: 'p', providers: ['b', 'c'], max_iterations: 5 })
    expect(c.getState().compareRequest(['b', 'c'])).not.toHaveProperty('provider')
  })

  it('builds a workspace request: commands, auditor, inputs and constraints one per line; no language or reflection', () => {
    const c = createComposerStore(memoryStorage())
    c.getState().set({
      prompt: ' Fix add ',
      mode: 'workspace',
      validate: 'python3 check.py\n\n  pytest -q  \n',
      auditor: 'claude',
      inputs: 'calc.py\n tests/ \n',
      constraints: 'Do not touch the tests.\n',
      language: 'sh',
      reflect: false,
    })
    expect(c.getState().request('fake')).toEqual({
      prompt: 'Fix add',
      provider: 'fake',
      max_iterations: 5,
      timeout_seconds: 30,
      mode: 'workspace',
      validate: ['python3 check.py', 'pytest -q'],
      auditor: 'claude',
      task: { instructions: '', inputs: ['calc.py', 'tests/'], constraints: ['Do not touch the tests.'] },
    })
    // Empty fields are left out; instructions default to the prompt on the server.
    c.getState().set({ validate: ' \n', auditor: '', inputs: '', constraints: '' })
    expect(c.getState().request('fake')).toEqual({ prompt: 'Fix add', provider: 'fake', max_iterations: 5, timeout_seconds: 30, mode: 'workspace' })
    c.getState().set({ constraints: 'Keep it short' })
    expect(c.getState().request('fake').task).toEqual({ instructions: '', constraints: ['Keep it short'] })
    // A comparison sends the same fields (each provider gets its own worktree on the server).
    expect(c.getState().compareRequest(['a', 'b'])).toMatchObject({ mode: 'workspace', providers: ['a', 'b'], task: { constraints: ['Keep it short'] } })
    // Back to script mode: none of it.
    c.getState().set({ mode: 'script' })
    const script = c.getState().request('fake')
    expect(script).toMatchObject({ language: 'sh', reflect: false })
    for (const k of ['mode', 'validate', 'auditor', 'task', 'workdir']) expect(script).not.toHaveProperty(k)
    // A follow-up can ask for its session's mode whatever the form says.
    expect(c.getState().request('fake', 'sess-1', 'more', 'workspace')).toMatchObject({ mode: 'workspace', task: { constraints: ['Keep it short'] } })
  })

  it('sends allow_network only when ticked, and only for the run started from the form', () => {
    const c = createComposerStore(memoryStorage())
    c.getState().set({ prompt: 'p' })
    expect(c.getState().request('fake')).not.toHaveProperty('allow_network')
    c.getState().set({ allowNetwork: true })
    expect(c.getState().request('fake')).toMatchObject({ allow_network: true })
    expect(c.getState().compareRequest(['a', 'b'])).toMatchObject({ allow_network: true })
    expect(c.getState().request('fake', 'sess-1', 'a follow-up')).not.toHaveProperty('allow_network')
    c.getState().startedRun()
    expect(c.getState().allowNetwork).toBe(false)
    expect(c.getState().request('fake')).not.toHaveProperty('allow_network')
  })

  it("sends the program's input in script mode only, and keeps it across a reload", () => {
    const kv = memoryStorage()
    const c = createComposerStore(kv)
    c.getState().set({ prompt: 'p' })
    expect(c.getState().request('fake')).not.toHaveProperty('stdin')
    c.getState().set({ stdin: 'Ada\n36\n' })
    expect(c.getState().request('fake')).toMatchObject({ stdin: 'Ada\n36\n' })
    expect(c.getState().compareRequest(['a', 'b'])).toMatchObject({ stdin: 'Ada\n36\n' })
    c.getState().set({ mode: 'workspace' })
    expect(c.getState().request('fake')).not.toHaveProperty('stdin')
    expect(createComposerStore(kv).getState().stdin).toBe('Ada\n36\n')
  })

  it('keeps the workspace fields across a reload, but never the network opt-in', () => {
    const kv = memoryStorage()
    createComposerStore(kv)
      .getState()
      .set({ mode: 'workspace', validate: 'pytest -q', auditor: 'claude', inputs: 'src/', constraints: 'no new deps', allowNetwork: true })
    expect(createComposerStore(kv).getState()).toMatchObject({
      mode: 'workspace',
      validate: 'pytest -q',
      auditor: 'claude',
      inputs: 'src/',
      constraints: 'no new deps',
      allowNetwork: false,
    })
    expect(kv.getItem('loopforge.composer')).not.toContain('allowNetwork')
    kv.setItem('loopforge.composer', '{"mode":"chaos","validate":42}')
    expect(createComposerStore(kv).getState()).toMatchObject({ mode: 'script', validate: '' })
  })
})

describe('compare store', () => {
  it('knows a workspace comparison: from its request, or reopened, from its runs; and re-runs none of its columns', async () => {
    const api = fakeApi()
    const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn() })
    const cmp = stores.compare
    await cmp.getState().start({ prompt: 'fix it', providers: ['a', 'b'], mode: 'workspace', validate: ['pytest -q'] })
    expect(cmp.getState().mode).toBe('workspace')
    expect(await cmp.getState().rerun('a')).toBeNull()
    expect(api.startRun).not.toHaveBeenCalled()

    await cmp.getState().start({ prompt: 'fizzbuzz', providers: ['a', 'b'] })
    expect(cmp.getState().mode).toBe('script')
    expect(await cmp.getState().rerun('a')).not.toBeNull()
    expect(api.startRun).toHaveBeenCalledTimes(1)

    const d = sessionDetail()
    d.mode = 'compare'
    d.kind = 'workspace'
    cmp.getState().open(d)
    expect(cmp.getState().mode).toBe('workspace')
    d.kind = 'script'
    cmp.getState().open(d)
    expect(cmp.getState().mode).toBe('script')
    cmp.getState().close()
    expect(cmp.getState().mode).toBe('script')
  })
})

describe('history store', () => {
  it('lists and searches sessions', async () => {
    const api = fakeApi()
    api.sessions.mockResolvedValue([{ id: 's1' }])
    const h = createHistoryStore(api)
    h.getState().setQuery('  dict ')
    await h.getState().load()
    expect(api.sessions).toHaveBeenCalledWith('dict', 200)
    expect(h.getState()).toMatchObject({ loaded: true, sessions: [{ id: 's1' }] })
  })

  it('drops the answer of an older search that arrives late', async () => {
    const api = fakeApi()
    let releaseOld!: (v: unknown) => void
    api.sessions.mockImplementationOnce(() => new Promise((r) => (releaseOld = r))).mockResolvedValueOnce([{ id: 'new' }])
    const h = createHistoryStore(api)
    const old = h.getState().load()
    await h.getState().load()
    releaseOld([{ id: 'old' }])
    await old
    expect(h.getState().sessions).toEqual([{ id: 'new' }])
  })

  it('opens a session, shows why one cannot be opened, and deletes', async () => {
    const api = fakeApi()
    api.sessions.mockResolvedValue([{ id: 's1' }, { id: 's2' }])
    api.session.mockResolvedValueOnce({ id: 's1', runs: [] }).mockRejectedValueOnce(new Error('session s2 not found'))
    const h = createHistoryStore(api)
    await h.getState().load()
    await h.getState().open('s1')
    expect(h.getState()).toMatchObject({ selectedId: 's1', detail: { id: 's1' }, detailError: null })
    await h.getState().open('s2')
    expect(h.getState()).toMatchObject({ selectedId: 's2', detail: null, detailError: { message: 'session s2 not found' } })

    await h.getState().open('s1').catch(() => {})
    api.session.mockResolvedValue({ id: 's1', runs: [] })
    await h.getState().open('s1')
    expect(await h.getState().remove('s1')).toBe(true)
    expect(api.deleteSession).toHaveBeenCalledWith('s1')
    expect(h.getState()).toMatchObject({ sessions: [{ id: 's2' }], selectedId: null, detail: null })
  })

  it('keeps a session whose delete failed, and says why', async () => {
    const api = fakeApi()
    api.sessions.mockResolvedValue([{ id: 's1' }])
    api.deleteSession.mockRejectedValueOnce(new Error('database is locked'))
    const h = createHistoryStore(api)
    await h.getState().load()
    expect(await h.getState().remove('s1')).toBe(false)
    expect(h.getState()).toMatchObject({ sessions: [{ id: 's1' }], deleteError: { message: 'database is locked' } })
  })
})

describe('workdir store', () => {
  it('web: sets a typed path, or shows why the server refused it', async () => {
    const api = fakeApi()
    api.workdir.mockResolvedValue('/home/ana/aulas')
    const w = createWorkdirStore(api)
    expect(w.getState().canChoose).toBe(false)
    await w.getState().load()
    expect(w.getState().path).toBe('/home/ana/aulas')
    api.setWorkdir.mockRejectedValueOnce(new Error('workdir /nope: no such directory'))
    expect(await w.getState().set('/nope')).toBe(false)
    expect(w.getState()).toMatchObject({ path: '/home/ana/aulas', error: { message: 'workdir /nope: no such directory' }, saving: false })
    expect(await w.getState().set(' /tmp/x ')).toBe(true)
    expect(api.setWorkdir).toHaveBeenLastCalledWith('/tmp/x')
    expect(w.getState()).toMatchObject({ path: '/tmp/x', error: null })
  })

  it('desktop: native dialog and folder drops', async () => {
    const api = fakeApi('desktop')
    let onChanged!: (p: string) => void
    let onError!: (m: string) => void
    const off = vi.fn()
    api.onWorkdirDropped.mockImplementation((c: typeof onChanged, e: typeof onError) => {
      onChanged = c
      onError = e
      return off
    })
    const w = createWorkdirStore(api)
    expect(w.getState().canChoose).toBe(true)
    await w.getState().choose()
    expect(w.getState().path).toBe('/chosen')
    onError('not a directory: /x.txt')
    expect(w.getState().error).toEqual({ message: 'not a directory: /x.txt' })
    onChanged('/dropped')
    expect(w.getState()).toMatchObject({ path: '/dropped', error: null })
    w.getState().dispose()
    expect(off).toHaveBeenCalled()
  })
})

describe('settings store', () => {
  it('cycles system → light → dark and follows the system when on system', () => {
    const kv = memoryStorage()
    const s = createSettingsStore(kv, true)
    expect(s.getState().theme).toBe('system')
    expect(effectiveTheme(s.getState())).toBe('dark')
    s.getState().setSystemDark(false)
    expect(effectiveTheme(s.getState())).toBe('light')
    s.getState().cycleTheme()
    expect(s.getState().theme).toBe('light')
    s.getState().cycleTheme()
    expect(effectiveTheme(s.getState())).toBe('dark')
    s.getState().cycleTheme()
    expect(s.getState().theme).toBe('system')
    s.getState().setTheme('dark')
    s.getState().setProjector(true)
    expect(createSettingsStore(kv, false).getState()).toMatchObject({ theme: 'dark', projector: true })
  })
})
