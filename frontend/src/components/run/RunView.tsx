import { useRef, type Ref } from 'react'
import { errorWords } from '../../api'
import { useRuns } from '../../stores'
import type { IterationView, RunState } from '../../stores/runModel'
import { isRetryable, noticeText, strings } from '../../strings'
import { QueueNotice } from '../class/QueueNotice'
import { ExportMenu } from '../history/ExportMenu'
import { AuditPanel, ChangesPanel, ToolCallsPanel, ValidationPanel, WorkspaceSummary } from '../workspace/WorkspacePanels'
import { CodePanel, type CodeEnding } from './CodePanel'
import { ExecPanel } from './ExecPanel'
import { RetryButton } from './RetryButton'
import { RunBanner } from './RunBanner'
import { RunStats } from './RunStats'
import { useStageLayout } from './stageLayout'
import { StreamPanel } from './StreamPanel'
import { TestsPanel } from './TestsPanel'
import { Timeline } from './Timeline'
import { useFollow } from './useFollow'

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
  const viewRef = useRef<HTMLElement>(null)
  const gridRef = useRef<HTMLDivElement>(null)
  const { selected, following, live, act, takeStep } = useFollow({ runId, run, replay, keys, holdOnScroll: stage || keys })
  const iterations = run?.iterations ?? []
  const idx = iterations.findIndex((i) => i.n === selected)
  const timelineInView = useStageLayout({ stage, viewRef, gridRef, hasIteration: idx >= 0, live, following, selected, takeStep })

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
      data-following={following}
      data-run-id={run.runId}
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
      <RunNotices run={run} live={live} />
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
        <Iteration ref={gridRef} run={run} it={it} prev={prev} live={live} following={following} stage={stage} ending={ending} anyTools={anyTools} />
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

/** RunNotices: what interrupts a run's stream — a lost connection, the sandbox queue, failures, the newest log lines. */
function RunNotices({ run, live }: { run: RunState; live: boolean }) {
  const s = strings.live
  const connection = useRuns((r) => r.connection)
  return (
    <>
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
    </>
  )
}

interface IterationProps {
  ref: Ref<HTMLDivElement>
  run: RunState
  it: IterationView
  /** The iteration before it (its code is what the diff is against). */
  prev?: IterationView
  live: boolean
  following: boolean
  stage: boolean
  ending?: CodeEnding
  /** Some iteration of the run called tools (a coding CLI's edits call none: no empty tool card). */
  anyTools: boolean
}

/** Iteration: one iteration — the model's words beside the code, tests and execution (or a workspace run's tools, validation and audit). */
function Iteration({ ref, run, it, prev, live, following, stage, ending, anyTools }: IterationProps) {
  const workspace = run.mode === 'workspace'
  return (
    <div ref={ref} className={`iter-grid${stage ? ' stage-grid' : ''}`} data-testid="iteration" data-iteration={it.n} data-phase={it.phase}>
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
  )
}
