import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { errorWords, type ShownError } from '../../api'
import { useRuns, useStores } from '../../stores'
import { isFinished, type RunState } from '../../stores/runModel'
import { follow, isFollowing, scrollsUp, selectedIteration, shortcut, type FollowAction, type Pinned, type StageRun } from '../../stage'
import { isRetryable, noticeText, strings } from '../../strings'
import { CodePanel, type CodeEnding } from './CodePanel'
import { ExportMenu } from '../history/ExportMenu'
import { ExecPanel } from './ExecPanel'
import { TestsPanel } from './TestsPanel'
import { RunBanner } from './RunBanner'
import { RunStats } from './RunStats'
import { StreamPanel } from './StreamPanel'
import { Timeline } from './Timeline'
import { QueueNotice } from '../class/QueueNotice'
import { AuditPanel, ChangesPanel, ToolCallsPanel, ValidationPanel, WorkspaceSummary } from '../workspace/WorkspacePanels'

interface Props {
  runId: string
  /** Replay: start at the first iteration and step through (PageUp/PageDown too). */
  replay?: boolean
  /**
   * The run takes the screen: the iteration is sized to the window, and
   * while it follows a live run the page keeps it in view.
   */
  stage?: boolean
  /** ← → step through the iterations and F toggles follow (not while typing). */
  keys?: boolean
  /**
   * Offer "Try this iteration again" when the provider failed in a way
   * trying again may cure; onRetried gets the new run's id.
   */
  retry?: boolean
  onRetried?: (runId: string) => void
}

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

/**
 * RunView shows one run — live or from the history — by id: stats, the final
 * banner, the iteration timeline and the selected iteration's stream, code,
 * diff and execution. It takes only an id, so several can sit side by side.
 *
 * It follows the newest iteration of a live run unless the user steps back
 * or scrolls up; then "Follow live" (or F) returns to it.
 */
export function RunView({ runId, replay = false, stage = false, keys = false, retry = false, onRetried }: Props) {
  const run = useRuns((s) => s.runs[runId])
  const connection = useRuns((s) => s.connection)
  const [pinned, setPinned] = useState<Pinned>(replay ? 1 : null)
  const viewRef = useRef<HTMLElement>(null)
  const gridRef = useRef<HTMLDivElement>(null)
  /** Set by a step of the user's: bring the iteration into view once it shows. */
  const stepped = useRef(false)

  useEffect(() => setPinned(replay ? 1 : null), [runId, replay])

  const iterations = run?.iterations ?? []
  const nsKey = iterations.map((i) => i.n).join(',')
  const live = run != null && !isFinished(run)
  const stageRun: StageRun = useMemo(() => ({ ns: nsKey ? nsKey.split(',').map(Number) : [], live }), [nsKey, live])
  const latest = useRef(stageRun)
  latest.current = stageRun
  const selected = selectedIteration(stageRun, pinned)
  const following = isFollowing(stageRun, pinned)
  const idx = iterations.findIndex((i) => i.n === selected)

  const act = useCallback((a: FollowAction, user = true) => {
    if (user) stepped.current = true
    setPinned((p) => follow(latest.current, p, a))
  }, [])

  // Keys: ← → step, F follows or holds; PageUp/PageDown step a replay (a presenter's clicker).
  useEffect(() => {
    if (!keys) return
    const onKey = (e: KeyboardEvent) => {
      const k = shortcut(e)
      if (k === 'prev' || k === 'next') act({ type: 'step', by: k === 'next' ? 1 : -1 })
      else if (replay && (k === 'pagePrev' || k === 'pageNext')) {
        act({ type: 'step', by: k === 'pageNext' ? 1 : -1 })
        e.preventDefault()
      } else if (k === 'follow') act({ type: 'toggle' })
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [keys, replay, act])

  // Scrolling up (the page or the model's words) while following: hold the view here.
  useEffect(() => {
    if (!following || !(stage || keys)) return
    const hold = () => act({ type: 'scrolledUp' }, false)
    const onWheel = (e: WheelEvent) => e.deltaY < 0 && hold()
    const onKey = (e: KeyboardEvent) => scrollsUp(e) && hold()
    window.addEventListener('wheel', onWheel, { passive: true })
    window.addEventListener('keydown', onKey)
    return () => {
      window.removeEventListener('wheel', onWheel)
      window.removeEventListener('keydown', onKey)
    }
  }, [following, stage, keys, act])

  const hasIteration = idx >= 0

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
  }, [stage, hasIteration])

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
  }, [stage, hasIteration])

  // Following: the newest iteration comes into view as it starts, and
  // the result as the run ends; a step of the user's too.
  const followedToEnd = useRef(false)
  if (live) followedToEnd.current = following
  useEffect(() => {
    const grid = gridRef.current
    if (!stage || !grid || !(following || stepped.current || followedToEnd.current)) return
    stepped.current = false
    followedToEnd.current = false
    if (viewRef.current) fitStage(viewRef.current, grid)
    bringIntoView(grid)
  }, [stage, following, selected, hasIteration, live])

  if (!run) return null
  const s = strings.live
  const it = idx >= 0 ? iterations[idx] : undefined
  const prev = idx > 0 ? iterations[idx - 1] : undefined
  const ending = codeEnding(run.status, run.finalCode, it?.code, !live && idx === iterations.length - 1)
  const workspace = run.mode === 'workspace'
  // Coding CLIs edit with their own tools (no tool_called events): no empty tool card for them.
  const anyTools = iterations.some((i) => i.tools.length > 0)

  return (
    <section
      ref={viewRef}
      className={`run-view${stage ? ' run-stage' : ''}`}
      data-testid="run-view"
      data-following={following}       data-run-id={run.runId}
      data-status={run.status}
      aria-label={`${run.provider} run`}
    >
      <RunStats run={run} />
      <RunBanner
        run={run}
        actions={
          run.sessionId ? (
            <>
              {retry && canRetry(run) && <RetryButton run={run} onRetried={onRetried} />}
              <ExportMenu sessionId={run.sessionId} runId={run.runId} formats={['py', 'md', 'html', 'ipynb', 'json']} workspace={workspace} language={run.language} hasCode={!!run.finalCode} />
            </>
          ) : undefined
        }
      />
      {workspace && <WorkspaceSummary run={run} />}
      {live && !run.fromHistory && connection.status === 'reconnecting' && (
        <p className="notice notice-warn" role="status" data-testid="run-paused">
          {strings.connection.paused}
        </p>
      )}
      <QueueNotice run={run} />
      {run.streamError && (
        <p className="notice notice-error" role="alert">
          <strong>{s.streamFailed}:</strong> {errorWords(run.streamError)}
        </p>
      )}
      {run.cancelError && (
        <p className="notice notice-error" role="alert">
          <strong>{s.cancelFailed}:</strong> {errorWords(run.cancelError)}
        </p>
      )}
      {run.logs.length > 0 && (
        <ul className="logs" aria-label={s.logs}>
          {run.logs.slice(-3).map((l, i) => (
            <li key={i} className={`log log-${l.level}`} data-testid="log">
              {noticeText(l)}
            </li>
          ))}
        </ul>
      )}
      {iterations.length > 0 && (
        <Timeline
          run={run}
          selected={selected}
          following={following}
          onSelect={(n) => act({ type: 'select', n })}
          onPrev={() => act({ type: 'step', by: -1 })}
          onNext={() => act({ type: 'step', by: 1 })}
          onFollow={() => act({ type: 'follow' })}
          replay={replay}
          inlineFollow={!stage || timelineInView}
        />
      )}
      {it ? (
        <div ref={gridRef} className={`iter-grid${stage ? ' stage-grid' : ''}`} data-testid="iteration" data-iteration={it.n} data-phase={it.phase}>
          <StreamPanel key={it.n} it={it} reflectOn={run.reflect} live={live} language={run.language} following={following} workspace={workspace} />
          {workspace ? (
            <div className="iter-side">
              {anyTools && <ToolCallsPanel it={it} live={live} />}
              <ValidationPanel run={run} it={it} live={live} />
              {(run.auditor || it.audit || it.auditing) && <AuditPanel it={it} live={live} />}
            </div>
          ) : (
            <div className="iter-side">
              <CodePanel key={`${run.runId}`} it={it} prev={prev} ending={ending} language={run.language} />
              {/* With tests, their verdicts decide: above the program's own run. */}
              <TestsPanel tests={it.tests} />
              <ExecPanel it={it} live={live} runId={run.runId} stdin={run.stdin} />
            </div>
          )}
        </div>
      ) : (
        live && <p className="muted waiting pulse">{s.waiting}</p>
      )}
      {workspace && <ChangesPanel run={run} />}
      {stage && !timelineInView && live && !following && (
        <button type="button" className="btn btn-primary follow-live" onClick={() => act({ type: 'follow' })} title={strings.stage.followTitle} data-testid="follow-live">
          <span className="live-dot" aria-hidden="true" /> {s.follow}
        </button>
      )}
    </section>
  )
}

/**
 * codeEnding: how the last code of a finished run is labelled — "final"
 * only when the run succeeded with it, "last attempt" when it failed, hit
 * its limit or was stopped.
 */
export function codeEnding(status: string, finalCode: string, code: string | undefined, lastOfFinished: boolean): CodeEnding | undefined {
  if (!lastOfFinished || !code) return undefined
  if (status === 'success') return !finalCode || code === finalCode ? 'final' : undefined
  return 'last'
}

/** canRetry: the run ended on a provider failure that trying again may cure (a script run: a workspace run's thread cannot be resumed). */
function canRetry(run: RunState): boolean {
  return run.status === 'error' && run.mode === 'script' && isRetryable(run.errorCode)
}

/**
 * RetryButton starts a run that goes on from where run stopped (the
 * backend's RunRequest.retry: same session, thread, prompt and settings)
 * and makes it the run shown.
 */
function RetryButton({ run, onRetried }: { run: RunState; onRetried?: (runId: string) => void }) {
  const stores = useStores()
  const b = strings.banner
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ShownError | null>(null)
  const retry = async () => {
    setBusy(true)
    setError(null)
    const runs = stores.runs.getState()
    const id = await runs.start({ prompt: run.prompt, retry: run.runId })
    setBusy(false)
    if (id) {
      onRetried?.(id)
      return
    }
    setError(stores.runs.getState().startError)
    stores.runs.getState().clearStartError()
  }
  return (
    <span className="retry-action">
      <button type="button" className="btn btn-small" data-testid="retry-iteration" title={b.retryTitle} disabled={busy} onClick={() => void retry()}>
        {busy ? b.retrying : b.retry}
      </button>
      {error && (
        <span className="notice-error small" role="alert" data-testid="retry-error">
          {b.retryFailed} {errorWords(error)}
        </span>
      )}
    </span>
  )
}
