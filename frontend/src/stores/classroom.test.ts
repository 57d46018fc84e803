import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '../api'
import { defaults, fakeApi, memoryStorage, presets, readyProvider } from '../test/fakeApi'
import { classView, fakeClass, instructorClass, noLimits, wallEntry } from '../test/fakeClass'
import { createStores } from './index'

function setup(role: 'student' | 'instructor' = 'student', patch = {}) {
  const api = fakeApi()
  const storage = memoryStorage()
  const me = role === 'student' ? { role, student_id: 'st-1', name: 'Ana', class: classView(patch) } : { role, class: instructorClass(patch) }
  const ops = fakeClass(api, me)
  const saveFile = vi.fn()
  const stores = createStores(api, { storage, schedule: (fn) => fn(), lang: 'en', saveFile })
  return { api, ops, stores, storage, saveFile, c: () => stores.classroom.getState(), form: () => stores.composer.getState() }
}

describe('classroom store: who the caller is', () => {
  it('a student: Me with their class', async () => {
    const { c } = setup('student')
    await c().loadMe()
    expect(c().status).toBe('ready')
    expect(c().me?.name).toBe('Ana')
    expect(c().class?.name).toBe('Turma A')
  })

  it('no token and no cookie (401): signed out; a student signed out while in the app was removed', async () => {
    const { api, c } = setup('student')
    await c().loadMe()
    api.call.mockRejectedValue(new ApiError('missing or wrong token', 401))
    await c().loadMe()
    expect(c().status).toBe('signedOut')
    expect(c().removed).toBe(true)

    const fresh = setup('student')
    fresh.api.call.mockRejectedValue(new ApiError('missing or wrong token', 401))
    await fresh.c().loadMe()
    expect(fresh.c().status).toBe('signedOut')
    expect(fresh.c().removed).toBe(false)
  })

  it('a student whose stream the server closed for good (removed) asks who they are, and learns of the removal', async () => {
    const { api, c } = setup('student')
    await c().loadMe()
    c().follow()
    api.call.mockRejectedValue(new ApiError('missing or wrong token', 401))
    api.events.setState({ status: 'refused', reason: 'removed from the class' })
    await vi.waitFor(() => expect(c().removed).toBe(true))
    expect(c().status).toBe('signedOut')
  })

  it('a server from before classes (404): the instructor, no class', async () => {
    const { api, c } = setup()
    api.call.mockRejectedValue(new ApiError('no such API endpoint: GET /api/me', 404))
    await c().loadMe()
    expect(c().status).toBe('ready')
    expect(c().me).toEqual({ role: 'instructor' })
    expect(c().class).toBeNull()
  })

  it('any other failure says why', async () => {
    const { api, c } = setup()
    api.call.mockRejectedValue(new Error('connection refused'))
    await c().loadMe()
    expect(c().status).toBe('failed')
    expect(c().error).toEqual({ message: 'connection refused' })
  })
})

describe('classroom store: joining', () => {
  it('sends the code as the server compares it and the trimmed name, and knows the student after', async () => {
    const { api, c } = setup()
    api.joinClass!.mockResolvedValue({ role: 'student', student_id: 'st-9', name: 'Bia', class: classView() })
    expect(await c().join(' k7q-x2m', '  Bia ')).toBe(true)
    expect(api.joinClass).toHaveBeenCalledWith({ code: 'K7QX2M', name: 'Bia' })
    expect(c().me?.role).toBe('student')
    expect(c().status).toBe('ready')
  })

  it('a refusal keeps its message, and a rate limit when joining is possible again', async () => {
    const { api, c } = setup()
    api.joinClass!.mockRejectedValueOnce(new ApiError('wrong class code', 403))
    expect(await c().join('AAAAAA', 'Bia')).toBe(false)
    expect(c().joinError).toMatchObject({ message: { message: 'wrong class code' } })

    const before = Date.now()
    api.joinClass!.mockRejectedValueOnce(new ApiError('too many attempts', 429, undefined, undefined, 42))
    await c().join('AAAAAA', 'Bia')
    expect(c().joinError?.message).toEqual({ message: 'too many attempts' })
    expect(c().joinError?.retryAt).toBeGreaterThanOrEqual(before + 42_000)
  })
})

describe('classroom store: the stream', () => {
  it('keeps the class and one wall line per student, the newest winning over a snapshot read earlier', async () => {
    const { api, ops, c } = setup('instructor')
    await c().loadMe()
    c().follow()
    c().follow() // once
    expect(api.events.classListeners.size).toBe(1)
    api.events.emitClass({ type: 'wall', payload: wallEntry('Ana', { iteration: 2 }) })
    // A snapshot answered after the stream spoke: Ana's older line must not come back.
    ops.Wall.mockResolvedValue([wallEntry('Ana', { iteration: 1 }), wallEntry('Bia', null)])
    await c().loadWall()
    expect(c().wall['st-Ana'].current?.iteration).toBe(2)
    expect(c().wall['st-Bia'].name).toBe('Bia')
    api.events.emitClass({ type: 'class_state', payload: instructorClass({ paused: true }) })
    expect(c().class?.paused).toBe(true)
  })
})

describe('classroom store: an assignment reaches the student form', () => {
  it('fills an empty form with the prompt and its settings, and again after the configured defaults arrive', async () => {
    const { api, c, form, stores } = setup('student', { assignment: { title: 'Ex 1', prompt: 'Sort a list', max_iterations: 7, language: 'sh', reflect: false, providers: ['fake'] } })
    let resolve!: (d: typeof defaults) => void
    api.defaults.mockReturnValue(new Promise((r) => (resolve = r)))
    await c().loadMe()
    expect(form().prompt).toBe('Sort a list')
    expect(form().maxIterations).toBe(7)
    expect(form().language).toBe('sh')
    expect(form().reflect).toBe(false)
    expect(form().providers).toEqual(['fake'])
    const loading = stores.providers.getState().load()
    resolve({ ...defaults, max_iterations: 3, language: 'python', reflect: true })
    await loading
    // The defaults landed in the form, and the assignment's settings went back over them.
    expect(form().maxIterations).toBe(7)
    expect(form().language).toBe('sh')
    expect(form().reflect).toBe(false)
  })

  it('asks before replacing a typed prompt; keep leaves it, and the same assignment is not asked again', async () => {
    const { api, c, form } = setup('student')
    await c().loadMe()
    c().follow()
    form().set({ prompt: 'my own idea' })
    api.events.emitClass({ type: 'class_state', payload: classView({ assignment: { prompt: 'Sort a list' } }) })
    expect(c().pendingAssignment?.prompt).toBe('Sort a list')
    expect(form().prompt).toBe('my own idea')
    c().resolveAssignment(false)
    expect(c().pendingAssignment).toBeNull()
    expect(form().prompt).toBe('my own idea')
    api.events.emitClass({ type: 'class_state', payload: classView({ assignment: { prompt: 'Sort a list' }, paused: true }) })
    expect(c().pendingAssignment).toBeNull()

    // A new one: asked again; replace fills.
    api.events.emitClass({ type: 'class_state', payload: classView({ assignment: { prompt: 'Reverse a string' } }) })
    expect(c().pendingAssignment?.prompt).toBe('Reverse a string')
    c().resolveAssignment(true)
    expect(form().prompt).toBe('Reverse a string')
  })

  it('refills the untouched form with the next assignment without asking, and remembers across a reload', async () => {
    const { api, c, form, storage } = setup('student', { assignment: { prompt: 'Sort a list' } })
    await c().loadMe()
    c().follow()
    api.events.emitClass({ type: 'class_state', payload: classView({ assignment: { prompt: 'Reverse a string' } }) })
    expect(c().pendingAssignment).toBeNull()
    expect(form().prompt).toBe('Reverse a string')

    // A reload: the same assignment and the same prompt (the form is kept) — nothing to ask.
    const api2 = fakeApi()
    fakeClass(api2, { role: 'student', name: 'Ana', class: classView({ assignment: { prompt: 'Reverse a string' } }) })
    const again = createStores(api2, { storage, schedule: (fn) => fn(), lang: 'en' })
    again.composer.getState().set({ prompt: 'Reverse a string, in place' })
    await again.classroom.getState().loadMe()
    expect(again.classroom.getState().pendingAssignment).toBeNull()
    expect(again.composer.getState().prompt).toBe('Reverse a string, in place')
  })

  it('the instructor form is never touched', async () => {
    const { c, form } = setup('instructor', { assignment: { prompt: 'Sort a list' } })
    await c().loadMe()
    expect(form().prompt).toBe('')
  })
})

describe('classroom store: instructor actions', () => {
  it('each answer is the class now; a refusal is kept with the action it belongs to', async () => {
    const { ops, c } = setup('instructor')
    await c().loadMe()
    expect(await c().setPaused(true)).toBe(true)
    expect(ops.PauseClass).toHaveBeenCalledWith({ paused: true })
    expect(c().class?.paused).toBe(true)
    expect(await c().spotlight('run-Ana')).toBe(true)
    expect(c().class?.spotlight).toBe('run-Ana')
    ops.Assign.mockRejectedValueOnce(new ApiError('not in class mode', 409))
    expect(await c().assign({ prompt: 'x' })).toBe(false)
    expect(c().actionError).toMatchObject({ action: 'assign', message: { message: 'not in class mode' } })
    expect(c().busy).toBeNull()
  })

  it('export downloads the file the server names', async () => {
    const { api, c, saveFile } = setup('instructor')
    await c().exportClass('csv')
    expect(api.fetchClassExport).toHaveBeenCalledWith('csv', 'en', expect.any(String)) // the export's words follow the UI, its times the browser's zone
    expect(saveFile).toHaveBeenCalledWith('class.csv', expect.any(Blob))
  })
})

describe('classroom store: the limits reach an open student form', () => {
  const fake2 = { ...readyProvider, name: 'fake2', default: false }

  it('a removed provider is unticked and gone, a lowered cap lowers the field, the presets are filtered; a widening comes back from the server', async () => {
    const { api, c, form, stores } = setup('student', { limits: { ...noLimits, max_iterations: 5 }, iteration_cap: 5 })
    api.providers.mockResolvedValue([readyProvider, fake2])
    api.defaults.mockResolvedValue({ ...defaults, provider: 'fake', max_iterations: 5, max_iterations_limit: 5 })
    await c().loadMe()
    await stores.providers.getState().load()
    c().follow()
    form().set({ providers: ['fake', 'fake2'], maxIterations: 5, presetId: 'data-structures-pt' })
    expect(form().iterationCap).toBe(5)

    // The instructor now offers fake2 alone, 3 iterations, one preset. The
    // server's lists answer later (the test holds them), the form acts at once.
    let answer!: () => void
    const held = new Promise<void>((r) => (answer = r))
    api.providers.mockImplementation(() => held.then(() => [fake2]))
    api.presets.mockImplementation(() => held.then(() => [presets[1]]))
    api.defaults.mockImplementation(() => held.then(() => ({ ...defaults, provider: 'fake2', max_iterations: 3, max_iterations_limit: 3 })))
    api.events.emitClass({ type: 'class_state', payload: classView({ limits: { ...noLimits, providers: ['fake2'], presets: ['data-structures-en'], max_iterations: 3 }, iteration_cap: 3 }) })

    expect(form().providers).toEqual(['fake2'])
    expect(form().iterationCap).toBe(3)
    expect(form().maxIterations).toBe(3)
    expect(form().presetId).toBe('')
    const p = stores.providers.getState()
    expect(p.providers.map((x) => x.name)).toEqual(['fake2'])
    expect(p.providers.find((x) => x.default)?.name).toBe('fake2')
    expect(p.defaults?.provider).toBe('fake2')
    expect(p.presets.map((x) => x.id)).toEqual(['data-structures-en'])
    expect(form().request(null).max_iterations).toBe(3)

    answer()
    await vi.waitFor(() => expect(stores.providers.getState().defaults?.max_iterations_limit).toBe(3))
    expect(stores.providers.getState().providers.map((x) => x.name)).toEqual(['fake2'])

    // Everything offered again, a higher cap: the lists are read anew and the
    // cap rises; the field keeps what the student chose.
    api.providers.mockResolvedValue([readyProvider, fake2])
    api.presets.mockResolvedValue(presets)
    api.defaults.mockResolvedValue({ ...defaults, max_iterations_limit: 10 })
    api.events.emitClass({ type: 'class_state', payload: classView({ limits: { ...noLimits, max_iterations: 10 }, iteration_cap: 10 }) })
    expect(form().iterationCap).toBe(10)
    expect(form().maxIterations).toBe(3)
    await vi.waitFor(() => expect(stores.providers.getState().providers.map((x) => x.name)).toEqual(['fake', 'fake2']))
    expect(stores.providers.getState().presets).toHaveLength(2)
  })

  it('a class_state that changes no limit (usage, a pause) leaves the form and the lists alone', async () => {
    const { api, c, form, stores } = setup('student')
    await c().loadMe()
    await stores.providers.getState().load()
    c().follow()
    form().set({ providers: ['fake'], maxIterations: 4 })
    const calls = api.providers.mock.calls.length
    api.events.emitClass({ type: 'class_state', payload: classView({ paused: true }) })
    expect(c().class?.paused).toBe(true)
    expect(form().providers).toEqual(['fake'])
    expect(form().maxIterations).toBe(4)
    expect(api.providers.mock.calls.length).toBe(calls)
  })

  it('an assignment naming a provider the class no longer offers ticks only the offered ones', async () => {
    const { c, form, stores, api } = setup('student', { limits: { ...noLimits, providers: ['fake2'] } })
    api.providers.mockResolvedValue([fake2])
    await c().loadMe()
    await stores.providers.getState().load()
    c().follow()
    api.events.emitClass({
      type: 'class_state',
      payload: classView({ limits: { ...noLimits, providers: ['fake2'] }, assignment: { prompt: 'Sort a list', providers: ['fake', 'fake2'] } }),
    })
    expect(form().prompt).toBe('Sort a list')
    expect(form().providers).toEqual(['fake2'])
  })

  it('a refresh after a run does not drop the presets and defaults a limits change is reading', async () => {
    const { c, stores, api } = setup('student')
    await c().loadMe()
    await stores.providers.getState().load()
    c().follow()
    let answer!: () => void
    const held = new Promise<void>((r) => (answer = r))
    api.presets.mockImplementation(() => held.then(() => [presets[0]]))
    api.defaults.mockImplementation(() => held.then(() => ({ ...defaults, max_iterations_limit: 4 })))
    api.events.emitClass({ type: 'class_state', payload: classView({ limits: { ...noLimits, max_iterations: 4 }, iteration_cap: 4 }) })
    await stores.providers.getState().refresh()
    answer()
    await vi.waitFor(() => expect(stores.providers.getState().defaults?.max_iterations_limit).toBe(4))
    expect(stores.providers.getState().presets.map((p) => p.id)).toEqual(['data-structures-pt'])
  })

  it('lists and defaults read before a limits change do not undo it when they answer after', async () => {
    const { c, form, stores, api } = setup('student', { limits: { ...noLimits, max_iterations: 5 }, iteration_cap: 5 })
    await c().loadMe()
    c().follow()
    let answer!: () => void
    const held = new Promise<void>((r) => (answer = r))
    api.providers.mockImplementationOnce(() => held.then(() => [readyProvider, fake2]))
    api.presets.mockImplementationOnce(() => held.then(() => presets))
    api.defaults.mockImplementationOnce(() => held.then(() => ({ ...defaults, max_iterations: 5, max_iterations_limit: 5 })))
    const loading = stores.providers.getState().load()

    api.providers.mockResolvedValue([fake2])
    api.presets.mockResolvedValue(presets)
    api.defaults.mockResolvedValue({ ...defaults, provider: 'fake2', max_iterations: 3, max_iterations_limit: 3 })
    api.events.emitClass({ type: 'class_state', payload: classView({ limits: { ...noLimits, providers: ['fake2'], max_iterations: 3 }, iteration_cap: 3 }) })
    await vi.waitFor(() => expect(stores.providers.getState().providers.map((p) => p.name)).toEqual(['fake2']))

    answer()
    await loading
    expect(stores.providers.getState().loaded).toBe(true)
    expect(stores.providers.getState().providers.map((p) => p.name)).toEqual(['fake2'])
    expect(stores.providers.getState().defaults?.max_iterations_limit).toBe(3)
    expect(form().iterationCap).toBe(3)
    expect(form().maxIterations).toBeLessThanOrEqual(3)
  })

  it('a limits change read after a page’s first lists still caps the form when those answer first', async () => {
    const { c, form, stores, api } = setup('student', { limits: { ...noLimits, max_iterations: 5 }, iteration_cap: 5 })
    await c().loadMe()
    c().follow()
    let first!: () => void
    let second!: () => void
    const held1 = new Promise<void>((r) => (first = r))
    const held2 = new Promise<void>((r) => (second = r))
    api.providers.mockImplementationOnce(() => held1.then(() => [readyProvider, fake2])).mockImplementationOnce(() => held2.then(() => [fake2]))
    api.presets.mockImplementationOnce(() => held1.then(() => presets)).mockImplementationOnce(() => held2.then(() => presets))
    api.defaults
      .mockImplementationOnce(() => held1.then(() => ({ ...defaults, max_iterations: 5, max_iterations_limit: 5, timeout_seconds: 42 })))
      .mockImplementationOnce(() => held2.then(() => ({ ...defaults, provider: 'fake2', max_iterations: 3, max_iterations_limit: 3, timeout_seconds: 42 })))
    const loading = stores.providers.getState().load()
    api.events.emitClass({ type: 'class_state', payload: classView({ limits: { ...noLimits, providers: ['fake2'], max_iterations: 3 }, iteration_cap: 3 }) })

    first()
    await loading
    expect(form().timeoutSeconds).toBe(42) // the configured settings reach the form
    expect(form().iterationCap).toBe(3) // the class's cap, not the older reading's
    expect(form().maxIterations).toBe(3)
    second()
    await vi.waitFor(() => expect(stores.providers.getState().providers.map((p) => p.name)).toEqual(['fake2']))
    expect(stores.providers.getState().defaults?.provider).toBe('fake2')
  })

  it("the instructor's own form is not held to the students' limits", async () => {
    const { api, c, form, stores } = setup('instructor')
    await c().loadMe()
    await stores.providers.getState().load()
    c().follow()
    form().set({ providers: ['fake'], maxIterations: 9 })
    api.events.emitClass({ type: 'class_state', payload: instructorClass({ limits: { ...noLimits, providers: ['openai'], max_iterations: 3 }, iteration_cap: 3 }) })
    expect(form().providers).toEqual(['fake'])
    expect(form().maxIterations).toBe(9)
    expect(stores.providers.getState().providers.map((x) => x.name)).toEqual(['fake', 'openai'])
  })
})
