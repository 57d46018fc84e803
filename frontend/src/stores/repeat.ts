// Repeat store: "repeat to measure" (issue 25 item 6). One repeat at a
// time: the server runs its rounds (each a comparison in the history) and
// this store follows it by long poll (the Repeat operation answers once the
// status's version is past the one asked, or after about 25 s) until it ends.

import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Api, RepeatGroup, RepeatRequest, RepeatStatus, RunRequest } from '../api'
import { shownError, type ShownError } from '../api'

/** The most rounds the server runs (service.MaxRepeat); it clamps a larger N. */
export const maxRepeat = 20

export type Reflection = 'on' | 'off' | 'ab'

export interface RepeatState {
  /** The form is open (the instructor asked to repeat the comparison shown). */
  open: boolean
  status: RepeatStatus | null
  starting: boolean
  startError: ShownError | null
  /** Following the repeat failed (the server went away): followAgain resumes. */
  followError: ShownError | null
  cancelling: boolean

  openForm(): void
  start(base: RunRequest, providers: string[], n: number, reflection: Reflection): Promise<boolean>
  cancel(): Promise<void>
  followAgain(): void
  /** Forgets the repeat shown (the server's goes on unless cancelled). */
  close(): void
}

export type RepeatStore = StoreApi<RepeatState>

const empty = { open: false, status: null, starting: false, startError: null, followError: null, cancelling: false }

/** repeatRequest is what StartRepeat sends: the comparison's request for every round, N clamped here as on the server. */
export function repeatRequest(base: RunRequest, providers: string[], n: number, reflection: Reflection): RepeatRequest {
  // A repeat is always new comparisons, never a follow-up of a session or a
  // provider's; the network opt-in was for the runs started from the form.
  const { session_id: _s, provider: _p, fresh: _f, reflect: _r, allow_network: _n, ...rest } = base
  void [_s, _p, _f, _r, _n]
  const repeat = Math.min(maxRepeat, Math.max(1, Math.round(n) || 1))
  if (reflection === 'ab') return { ...rest, providers, repeat, reflect_ab: true }
  return { ...rest, providers, repeat, reflect: reflection === 'on' }
}

export function createRepeatStore(api: Api): RepeatStore {
  // Bumped by start and close: a poll answering for an older repeat is dropped.
  let gen = 0
  return createStore<RepeatState>()((set, get) => {
    async function follow(my: number) {
      for (;;) {
        const st = get().status
        if (my !== gen || !st || st.state !== 'running') return
        try {
          const next = await api.call('Repeat', { id: st.id, after: st.version })
          if (my !== gen) return
          set({ status: next, cancelling: next.state === 'running' && get().cancelling })
        } catch (err) {
          if (my === gen) set({ followError: shownError(err) })
          return
        }
      }
    }
    return {
      ...empty,

      async start(base, providers, n, reflection) {
        const my = ++gen
        set({ ...empty, open: true, starting: true })
        try {
          const status = await api.call('StartRepeat', repeatRequest(base, providers, n, reflection))
          if (my !== gen) return false
          set({ status, starting: false })
          void follow(my)
          return true
        } catch (err) {
          if (my === gen) set({ starting: false, startError: shownError(err) })
          return false
        }
      },

      async cancel() {
        const st = get().status
        if (!st || st.state !== 'running') return
        set({ cancelling: true })
        try {
          await api.call('CancelRepeat', { id: st.id })
        } catch (err) {
          set({ cancelling: false, followError: shownError(err) })
        }
      },

      followAgain() {
        if (!get().followError) return
        set({ followError: null })
        void follow(gen)
      },

      openForm() {
        set({ open: true })
      },
      close() {
        gen++
        set({ ...empty })
      },
    }
  })
}

/** The numbers a result column compares, null when a group has none. */
type Measure = (g: RepeatGroup) => number | null

export const measures = {
  passAt1: (g: RepeatGroup) => g.pass_at_1,
  green: (g: RepeatGroup) => (g.iterations_to_green.n > 0 ? g.iterations_to_green.mean : null),
  wall: (g: RepeatGroup) => (g.wall_ms.n > 0 ? g.wall_ms.mean : null),
  cost: (g: RepeatGroup) => (g.cost_usd.n > 0 ? g.cost_usd.mean : null),
  tests: (g: RepeatGroup) => (g.tests_passed.n > 0 ? g.tests_passed.mean : null),
} satisfies Record<string, Measure>

/** bestOf: the indexes of the groups with the best known value of m (the highest when high is true, else the lowest). */
export function bestOf(groups: RepeatGroup[], m: Measure, high: boolean): Set<number> {
  const vals = groups.map(m)
  const known = vals.filter((v): v is number => v != null)
  if (known.length === 0) return new Set()
  const top = high ? Math.max(...known) : Math.min(...known)
  return new Set(vals.flatMap((v, i) => (v === top ? [i] : [])))
}

/**
 * bestGroup: the most reliable group — the highest pass@1, then the fewest
 * mean iterations to green, then the shortest mean time; -1 when none passed
 * at all (no group is better than another then).
 */
export function bestGroup(groups: RepeatGroup[]): number {
  let best = -1
  const key = (g: RepeatGroup) => [g.pass_at_1, -(measures.green(g) ?? Infinity), -(measures.wall(g) ?? Infinity)]
  groups.forEach((g, i) => {
    if (g.pass_at_1 <= 0) return
    if (best < 0) {
      best = i
      return
    }
    const a = key(g)
    const b = key(groups[best])
    for (let k = 0; k < a.length; k++) {
      if (a[k] !== b[k]) {
        if (a[k] > b[k]) best = i
        return
      }
    }
  })
  return best
}
