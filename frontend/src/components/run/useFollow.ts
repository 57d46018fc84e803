import { useCallback, useEffect, useEffectEvent, useMemo, useRef, useState } from 'react'
import type { RunState } from '../../stores/runModel'
import { isFinished } from '../../stores/runModel'
import { follow, isFollowing, scrollsUp, selectedIteration, shortcut, type FollowAction, type Pinned, type StageRun } from '../../stage'

interface Options {
  runId: string
  run: RunState | undefined
  /** Replay: start at the first iteration; PageUp/PageDown step too. */
  replay: boolean
  /** ← → step and F toggles follow (not while typing). */
  keys: boolean
  /** Scrolling up (the page or the model's words) while following holds the view. */
  holdOnScroll: boolean
}

/** The iteration pinned for one run in one mode (a replay starts on the first). */
interface Pin {
  runId: string
  replay: boolean
  pinned: Pinned
}

/**
 * useFollow: which iteration of a run is shown. It follows the newest
 * iteration of a live run unless the user steps back or scrolls up; then
 * "Follow live" (or F) returns to it. The pin belongs to one run: another
 * run id (or replay) starts afresh, without an effect to reset it.
 *
 * takeStep tells whether the user stepped (not scrolled) since it was last
 * asked: the caller brings the iteration into view once it shows.
 */
export function useFollow({ runId, run, replay, keys, holdOnScroll }: Options) {
  const initial: Pinned = replay ? 1 : null
  const [pin, setPin] = useState<Pin>({ runId, replay, pinned: initial })
  const pinnedOf = (p: Pin): Pinned => (p.runId === runId && p.replay === replay ? p.pinned : initial)
  const pinned = pinnedOf(pin)
  const stepped = useRef(false)

  const iterations = run?.iterations ?? []
  const nsKey = iterations.map((i) => i.n).join(',')
  const live = run != null && !isFinished(run)
  const stageRun: StageRun = useMemo(() => ({ ns: nsKey ? nsKey.split(',').map(Number) : [], live }), [nsKey, live])
  const selected = selectedIteration(stageRun, pinned)
  const following = isFollowing(stageRun, pinned)

  const act = (a: FollowAction, user = true) => {
    if (user) stepped.current = true
    setPin((p) => ({ runId, replay, pinned: follow(stageRun, pinnedOf(p), a) }))
  }
  // The listeners below act on the run as it is when the key is pressed.
  const actNow = useEffectEvent(act)

  // Keys: ← → step, F follows or holds; PageUp/PageDown step a replay (a presenter's clicker).
  useEffect(() => {
    if (!keys) return
    const onKey = (e: KeyboardEvent) => {
      const k = shortcut(e)
      if (k === 'prev' || k === 'next') actNow({ type: 'step', by: k === 'next' ? 1 : -1 })
      else if (replay && (k === 'pagePrev' || k === 'pageNext')) {
        actNow({ type: 'step', by: k === 'pageNext' ? 1 : -1 })
        e.preventDefault()
      } else if (k === 'follow') actNow({ type: 'toggle' })
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [keys, replay])

  // Scrolling up (the page or the model's words) while following: hold the view here.
  useEffect(() => {
    if (!following || !holdOnScroll) return
    const hold = () => actNow({ type: 'scrolledUp' }, false)
    const onWheel = (e: WheelEvent) => e.deltaY < 0 && hold()
    const onKey = (e: KeyboardEvent) => scrollsUp(e) && hold()
    window.addEventListener('wheel', onWheel, { passive: true })
    window.addEventListener('keydown', onKey)
    return () => {
      window.removeEventListener('wheel', onWheel)
      window.removeEventListener('keydown', onKey)
    }
  }, [following, holdOnScroll])

  // Stable: the effect that asks runs when the view changes, not on every render.
  const takeStep = useCallback(() => {
    const s = stepped.current
    stepped.current = false
    return s
  }, [])

  return { selected, following, live, act, takeStep }
}
