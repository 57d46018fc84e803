import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react'

/** Space kept below the stage, and between it and what sticks to the top. */
const STAGE_PAD = 12
/** Below this width the iteration is one column: it flows, unsized. */
const STAGE_MIN_WIDTH = 1101

/** stickyHeight: how much of the window the sticky bars cover at the top. */
function stickyHeight(): number {
  let h = 0
  document.querySelectorAll<HTMLElement>('[data-sticky]').forEach((el) => (h += el.offsetHeight))
  return h
}

/**
 * fitStage sizes the iteration (grid) to the window: all of the run view
 * in one screen without scrolling if it leaves the iteration room, else
 * the run view below the sticky bars, else at least the timeline and the
 * iteration.
 */
function fitStage(view: HTMLElement, grid: HTMLElement): void {
  const vh = window.innerHeight
  if (window.innerWidth < STAGE_MIN_WIDTH || vh < 400) {
    grid.style.removeProperty('--stage-h')
    return
  }
  const sticky = stickyHeight()
  const g = grid.getBoundingClientRect()
  const v = view.getBoundingClientRect()
  const timeline = view.querySelector('.timeline')?.getBoundingClientRect()
  const atTop = vh - (g.top + window.scrollY) - STAGE_PAD
  const whole = vh - sticky - STAGE_PAD - (g.top - v.top) - STAGE_PAD
  const bare = vh - sticky - STAGE_PAD - (g.top - (timeline?.top ?? g.top)) - STAGE_PAD
  // Room enough for a short program and its output: below that, scroll the run's header away.
  const room = Math.max(280, vh * 0.4)
  const h = Math.floor(atTop >= room ? atTop : whole >= room ? whole : Math.max(bare, 300))
  if (grid.style.getPropertyValue('--stage-h') !== `${h}px`) grid.style.setProperty('--stage-h', `${h}px`)
}

/** bringIntoView scrolls the page the least that shows all of el below the sticky bars. */
function bringIntoView(el: HTMLElement): void {
  const r = el.getBoundingClientRect()
  const top = stickyHeight() + STAGE_PAD
  const bottom = window.innerHeight - STAGE_PAD
  let dy = 0
  if (r.bottom > bottom) dy = r.bottom - bottom
  if (r.top + -dy < top) dy = r.top - top
  if (Math.abs(dy) < 1) return
  const smooth = !globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches
  window.scrollBy({ top: dy, behavior: smooth ? 'smooth' : 'auto' })
}

interface Options {
  /** The run takes the screen: without it, nothing here happens. */
  stage: boolean
  /** The run view (section) and the iteration's grid in it. */
  viewRef: RefObject<HTMLElement | null>
  gridRef: RefObject<HTMLDivElement | null>
  /** An iteration is shown (the grid exists). */
  hasIteration: boolean
  live: boolean
  following: boolean
  /** The iteration shown. */
  selected: number | null
  /** Whether the user stepped since last asked (useFollow): the iteration comes into view once it shows. */
  takeStep: () => boolean
}

/**
 * useStageLayout: on the stage, the iteration is sized to the window and,
 * while the view follows the run, kept in sight. Returns whether the
 * timeline is in view ("Follow live" floats in sight when it is not).
 */
export function useStageLayout({ stage, viewRef, gridRef, hasIteration, live, following, selected, takeStep }: Options): boolean {
  // "Follow live" sits in the timeline, or floats in sight when the timeline is scrolled away.
  const [timelineInView, setTimelineInView] = useState(true)
  useEffect(() => {
    const el = viewRef.current?.querySelector('.timeline')
    if (!stage || !el || typeof IntersectionObserver === 'undefined') return
    const io = new IntersectionObserver(([e]) => setTimelineInView(e.intersectionRatio > 0.9), {
      threshold: [0, 0.9, 1],
      rootMargin: `-${stickyHeight()}px 0px 0px 0px`,
    })
    io.observe(el)
    return () => io.disconnect()
  }, [stage, hasIteration, viewRef])

  // The stage fits the window, and keeps fitting as the run view grows (banner, notices) or the window changes.
  useLayoutEffect(() => {
    const view = viewRef.current
    const grid = gridRef.current
    if (!stage || !view || !grid) return
    const fit = () => fitStage(view, grid)
    fit()
    window.addEventListener('resize', fit)
    const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(fit)
    ro?.observe(view)
    return () => {
      window.removeEventListener('resize', fit)
      ro?.disconnect()
    }
  }, [stage, hasIteration, viewRef, gridRef])

  // Following: the newest iteration comes into view as it starts, and
  // the result as the run ends; a step of the user's too. Whether the view
  // followed the run is remembered from its last commit while live (an
  // effect of its own, before the one that reads it).
  const followedToEnd = useRef(false)
  useEffect(() => {
    if (live) followedToEnd.current = following
  })
  useEffect(() => {
    const grid = gridRef.current
    if (!stage || !grid) return
    const stepped = takeStep()
    if (!(following || stepped || followedToEnd.current)) return
    followedToEnd.current = false
    if (viewRef.current) fitStage(viewRef.current, grid)
    bringIntoView(grid)
  }, [stage, following, selected, hasIteration, live, viewRef, gridRef, takeStep])

  return timelineInView
}
