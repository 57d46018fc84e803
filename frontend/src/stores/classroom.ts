// Classroom store (`loopforge class`): who the caller is (Me), the class as
// the server last told it, and for the instructor the live wall. Both come
// from the websocket's class stream (subscribe_class): no polling anywhere.
// A student's form is filled from a pushed assignment here too (see
// classroom.ts for the rule), so the form changes even while the student
// looks at another tab.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api } from '../api'
import { ApiError, shownError, type ShownError } from '../api'
import type { ClassExportFormat, ClassMessage } from '../api/class'
import { ClassStateType, type Assignment, type ClassLimits, type ClassView, type Me, type WallEntry } from '../api/gen/wire'
import { assignedTests, assignmentAction, assignmentKey, normalizeCode, type Applied } from '../classroom'
import type { ComposerStore } from './composer'
import { clampIterations, limits, toLanguage } from './composer'
import type { SaveFile } from './exports'
import { defaultStorage, readJSON, writeJSON, type KV } from './persist'
import type { ProvidersStore } from './providers'
import { currentLang, timeZone } from '../strings'

/** Where asking "who am I" got: loading, known, or refused (401: no token, no student cookie, or a removed student). */
export type MeStatus = 'loading' | 'ready' | 'signedOut' | 'failed'

/** Instructor actions, one at a time per kind (the button that started it shows it). */
export type ClassAction = 'wall' | 'limits' | 'assign' | 'pause' | 'spotlight' | 'remove' | 'export'

export interface JoinError {
  message: ShownError
  /** A refusal for too many attempts: when joining is possible again (ms since the epoch). */
  retryAt?: number
}

export interface ClassroomState {
  me: Me | null
  status: MeStatus
  /** Why Me failed (status failed). */
  error: ShownError | null
  /** The class as last heard (Me, an operation's answer, or the stream); null outside class mode. */
  class: ClassView | null
  /** The instructor's wall: one line per student, by id. */
  wall: Record<string, WallEntry>
  /** The class stream is subscribed. */
  following: boolean
  joining: boolean
  joinError: JoinError | null
  /** The instructor action in flight, and the last one's refusal. */
  busy: ClassAction | null
  actionError: { action: ClassAction; message: ShownError } | null
  /** A student: a new assignment arrived while they had typed their own prompt (they choose). */
  pendingAssignment: Assignment | null
  /** A student was signed out while using the app: the instructor removed them. */
  removed: boolean

  loadMe(): Promise<void>
  join(code: string, name: string): Promise<boolean>
  /** Subscribes to the class stream (once; later calls do nothing). */
  follow(): void
  /**
   * Reads the wall once (GET /api/class/wall) for a page just opened; the
   * stream's lines win over it (they are never older).
   */
  loadWall(): Promise<void>
  setLimits(l: ClassLimits): Promise<boolean>
  assign(a: Assignment): Promise<boolean>
  setPaused(paused: boolean): Promise<boolean>
  /** Puts a run on the stage ("" takes it off). */
  spotlight(runId: string): Promise<boolean>
  removeStudent(id: string): Promise<boolean>
  exportClass(format: ClassExportFormat): Promise<void>
  /** The student's answer to a pending assignment: replace the prompt with it, or keep theirs. */
  resolveAssignment(replace: boolean): void
  /** A student: puts the current assignment in the form again. */
  refillAssignment(): void
  clearActionError(): void
  dispose(): void
}

export type ClassroomStore = StoreApi<ClassroomState>

export interface ClassroomDeps {
  composer: ComposerStore
  providers: ProvidersStore
  storage?: KV | null
  saveFile: SaveFile
}

const APPLIED_KEY = 'loopforge.assignment'

export function createClassroomStore(api: Api, deps: ClassroomDeps): ClassroomStore {
  const kv = deps.storage === undefined ? defaultStorage() : deps.storage
  let applied: Applied | null = readApplied(kv)
  let offStream: (() => void) | null = null
  let offConnection: (() => void) | null = null

  const store = createStore<ClassroomState>()((set, get) => {
    /** setClass takes a newer class view and, for a student, brings its assignment to the form. */
    const setClass = (c: ClassView | null) => {
      set({ class: c })
      if (get().me?.role !== 'student') return
      if (c) applyLimits(c)
      considerAssignment(c?.assignment)
    }

    /**
     * applyLimits brings a student's open form within the class's limits
     * as soon as they arrive (a removed provider unticked and gone, a
     * lowered cap lowering the field, the presets filtered): a Run the
     * server would refuse is not offered. Only a change acts: the lists
     * as loaded already are the class's.
     */
    let limitsKey: string | null = null
    const applyLimits = (c: ClassView) => {
      const l = c.limits
      const key = JSON.stringify([l.providers ?? [], l.presets ?? [], c.iteration_cap ?? null])
      if (key === limitsKey) return
      const first = limitsKey === null
      limitsKey = key
      deps.composer.getState().classLimits({ providers: l.providers ?? [], presets: l.presets ?? [], iterationCap: c.iteration_cap })
      if (!first) deps.providers.getState().classLimits(l)
    }

    const considerAssignment = (a: Assignment | undefined) => {
      const action = assignmentAction(a, deps.composer.getState().prompt, applied)
      if (action === 'fill') fill(a!)
      else if (action === 'ask') set({ pendingAssignment: a! })
      else if (!a && get().pendingAssignment) set({ pendingAssignment: null })
    }

    const fill = (a: Assignment) => {
      const preset = a.preset ? deps.providers.getState().presets.find((p) => p.id === a.preset) : undefined
      // A prompt problem: the assignment's text is the problem the student
      // reads (in the banner); the prompt is theirs to write.
      const prompt = a.prompt_only ? '' : a.prompt.trim() ? a.prompt : (preset?.prompt ?? '')
      const patch: Parameters<ReturnType<ComposerStore['getState']>['set']>[0] = { prompt, presetId: a.prompt_only || !preset ? '' : preset.id, mode: 'script' }
      // The assignment's tests judge the run on the server; tests of the
      // student's own would be refused beside them.
      if (assignedTests(a)) patch.tests = ''
      // An assignment names providers the class may since have stopped
      // offering: those are left out, not ticked for a Run the server refuses.
      const offered = get().class?.limits.providers ?? []
      const providers = (a.providers ?? []).filter((p) => !offered.length || offered.includes(p))
      if (providers.length) patch.providers = providers
      // The server checked the assignment's limit; before the defaults (and
      // so the server's cap) arrive only the lower bound is known.
      const form = deps.composer.getState()
      if (a.max_iterations) patch.maxIterations = clampIterations(a.max_iterations, form.defaultsLoaded ? form.iterationCap : Infinity)
      if (a.timeout_seconds) patch.timeoutSeconds = Math.min(limits.timeoutSeconds.max, Math.max(limits.timeoutSeconds.min, Math.round(a.timeout_seconds)))
      if (a.language) patch.language = toLanguage(a.language)
      if (a.reflect != null) patch.reflect = a.reflect
      deps.composer.getState().set(patch)
      remember({ key: assignmentKey(a), prompt })
      set({ pendingAssignment: null })
    }

    const remember = (x: Applied) => {
      applied = x
      writeJSON(kv, APPLIED_KEY, x)
    }

    /** Students whose line came from the stream: a snapshot read earlier must not overwrite it. */
    const streamed = new Set<string>()
    const onMessage = (m: ClassMessage) => {
      if (m.type === ClassStateType) return setClass(m.payload)
      streamed.add(m.payload.student_id)
      set({ wall: { ...get().wall, [m.payload.student_id]: m.payload } })
    }

    /** act runs one instructor operation; its answer (the class now) replaces the class shown. */
    const act = async (action: ClassAction, fn: () => Promise<ClassView | null>): Promise<boolean> => {
      set({ busy: action, actionError: null })
      try {
        const c = await fn()
        if (c) setClass(c)
        set({ busy: null })
        return true
      } catch (err) {
        set({ busy: null, actionError: { action, message: shownError(err) } })
        return false
      }
    }

    return {
      me: null,
      status: 'loading',
      error: null,
      class: null,
      wall: {},
      following: false,
      joining: false,
      joinError: null,
      busy: null,
      actionError: null,
      pendingAssignment: null,
      removed: false,

      async loadMe() {
        // Asked again (a lost connection): the page stays as it is meanwhile.
        if (get().status !== 'ready') set({ status: 'loading', error: null })
        try {
          const me = await api.call('Me', {})
          set({ me, status: 'ready' })
          setClass(me.class ?? null)
        } catch (err) {
          const status = err instanceof ApiError ? err.status : undefined
          if (status === 401) set({ me: null, status: 'signedOut', removed: get().me?.role === 'student' })
          // A server from before classes has no /api/me: it is the instructor's, as always.
          else if (status === 404) set({ me: { role: 'instructor' }, status: 'ready', class: null })
          else set({ status: 'failed', error: shownError(err) })
        }
      },

      async join(code, name) {
        if (!api.joinClass) return false
        set({ joining: true, joinError: null })
        try {
          const me = await api.joinClass({ code: normalizeCode(code), name: name.trim() })
          set({ me, status: 'ready', joining: false })
          setClass(me.class ?? null)
          return true
        } catch (err) {
          const retry = err instanceof ApiError ? err.retryAfterSeconds : undefined
          set({ joining: false, joinError: { message: shownError(err), ...(retry != null ? { retryAt: Date.now() + retry * 1000 } : {}) } })
          return false
        }
      },

      follow() {
        if (offStream) return
        offStream = api.events.subscribeClass(onMessage)
        set({ following: true })
        // A student removed by the instructor has their socket closed (1008, no retry): ask who we are again,
        // which shows the removal; also once per lost connection, in case the close frame never arrived.
        offConnection = api.events.onConnection((c) => {
          const lost = c.status === 'refused' || (c.status === 'reconnecting' && c.attempt === 1)
          if (lost && get().me?.role === 'student') void get().loadMe()
        })
      },

      async loadWall() {
        try {
          const lines = await api.call('Wall', {})
          const wall = { ...get().wall }
          for (const e of lines) if (!streamed.has(e.student_id)) wall[e.student_id] = e
          set({ wall })
        } catch (err) {
          set({ actionError: { action: 'wall', message: shownError(err) } })
        }
      },

      setLimits: (l) => act('limits', () => api.call('ClassSettings', l)),
      assign: (a) => act('assign', () => api.call('Assign', a)),
      setPaused: (paused) => act('pause', () => api.call('PauseClass', { paused })),
      spotlight: (runId) => act('spotlight', () => api.call('SetSpotlight', { run_id: runId })),
      removeStudent: (id) =>
        act('remove', async () => {
          await api.call('RemoveStudent', { id })
          return null
        }),

      async exportClass(format) {
        const fetchExport = api.fetchClassExport
        if (!fetchExport) return
        await act('export', async () => {
          const file = await fetchExport(format, currentLang(), timeZone())
          deps.saveFile(file.name, file.data)
          return null
        })
      },

      resolveAssignment(replace) {
        const a = get().pendingAssignment
        if (!a) return
        if (replace) fill(a)
        else {
          remember({ key: assignmentKey(a), prompt: '' })
          set({ pendingAssignment: null })
        }
      },

      refillAssignment() {
        const a = get().class?.assignment
        if (a && assignmentKey(a)) fill(a)
      },

      clearActionError() {
        set({ actionError: null })
      },

      dispose() {
        offStream?.()
        offConnection?.()
        offStream = offConnection = null
      },
    }
  })
  // The configured defaults land in the form once loaded, possibly after an
  // assignment filled it: its settings go back over them.
  deps.providers.subscribe((p, prev) => {
    if (!p.loaded || prev.loaded) return
    const s = store.getState()
    // The defaults just put in the form may be older than the class
    // view (its limits changed while they were read): the class has the last word on the cap.
    if (s.me?.role === 'student' && s.class) {
      deps.composer.getState().classLimits({ providers: s.class.limits.providers ?? [], presets: s.class.limits.presets ?? [], iterationCap: s.class.iteration_cap })
    }
    const a = s.class?.assignment
    if (s.me?.role !== 'student' || !a || assignmentKey(a) !== applied?.key) return
    if (deps.composer.getState().prompt.trim() === applied.prompt.trim()) s.refillAssignment()
  })
  return store
}

function readApplied(kv: KV | null): Applied | null {
  const x = readJSON<Applied>(kv, APPLIED_KEY)
  return typeof x.key === 'string' && typeof x.prompt === 'string' ? { key: x.key, prompt: x.prompt } : null
}
