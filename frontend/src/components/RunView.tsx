import { useCallback, useEffect, useState } from 'react'
import { useRuns } from '../stores'
import { isFinished } from '../stores/runModel'
import { strings } from '../strings'
import { CodePanel } from './CodePanel'
import { ExportMenu } from './ExportMenu'
import { ExecPanel } from './ExecPanel'
import { RunBanner } from './RunBanner'
import { RunStats } from './RunStats'
import { StreamPanel } from './StreamPanel'
import { Timeline } from './Timeline'
import { AuditPanel, ChangesPanel, ToolCallsPanel, ValidationPanel, WorkspaceSummary } from './WorkspacePanels'

interface Props {
  runId: string
  /** Replay: start at the first iteration and step through (arrow keys too). */
  replay?: boolean
}

/**
 * RunView shows one run — live or from the history — by id: stats, the final
 * banner, the iteration timeline and the selected iteration's stream, code,
 * diff and execution. It takes only an id, so several can sit side by side.
 */
export function RunView({ runId, replay = false }: Props) {
  const run = useRuns((s) => s.runs[runId])
  const connection = useRuns((s) => s.connection)
  // null = follow the newest iteration as it arrives.
  const [pinned, setPinned] = useState<number | null>(replay ? 1 : null)

  useEffect(() => setPinned(replay ? 1 : null), [runId, replay])

  const iterations = run?.iterations ?? []
  const newest = iterations.length ? iterations[iterations.length - 1].n : null
  const selected = pinned != null && iterations.some((i) => i.n === pinned) ? pinned : newest
  const idx = iterations.findIndex((i) => i.n === selected)

  const step = useCallback(
    (d: number) => {
      const j = idx + d
      if (j >= 0 && j < iterations.length) setPinned(iterations[j].n)
    },
    [idx, iterations],
  )

  useEffect(() => {
    if (!replay) return
    const onKey = (e: KeyboardEvent) => {
      const tag = (e.target as HTMLElement | null)?.tagName
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return
      if (e.key === 'ArrowRight' || e.key === 'PageDown') step(1)
      else if (e.key === 'ArrowLeft' || e.key === 'PageUp') step(-1)
      else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [replay, step])

  if (!run) return null
  const s = strings.live
  const live = !isFinished(run)
  const it = idx >= 0 ? iterations[idx] : undefined
  const prev = idx > 0 ? iterations[idx - 1] : undefined
  const isFinal = !live && it != null && idx === iterations.length - 1 && !!run.finalCode && it.code === run.finalCode
  const workspace = run.mode === 'workspace'
  // Coding CLIs edit with their own tools (no tool_called events): no empty tool card for them.
  const anyTools = iterations.some((i) => i.tools.length > 0)

  return (
    <section className="run-view" data-testid="run-view" data-run-id={run.runId} data-status={run.status} aria-label={`${run.provider} run`}>
      <RunStats run={run} />
      <RunBanner run={run} />
      {workspace && <WorkspaceSummary run={run} />}
      {!live && run.sessionId && (
        <div className="run-tools">
          <ExportMenu sessionId={run.sessionId} runId={run.runId} formats={['py', 'md', 'html', 'ipynb', 'json']} workspace={workspace} language={run.language} hasCode={!!run.finalCode} />
        </div>
      )}
      {live && !run.fromHistory && connection.status === 'reconnecting' && (
        <p className="notice notice-warn" role="status" data-testid="run-paused">
          {strings.connection.paused}
        </p>
      )}
      {run.streamError && (
        <p className="notice notice-error" role="alert">
          <strong>{s.streamFailed}:</strong> {run.streamError}
        </p>
      )}
      {run.cancelError && (
        <p className="notice notice-error" role="alert">
          <strong>{s.cancelFailed}:</strong> {run.cancelError}
        </p>
      )}
      {run.logs.length > 0 && (
        <ul className="logs" aria-label={s.logs}>
          {run.logs.slice(-3).map((l, i) => (
            <li key={i} className={`log log-${l.level}`}>
              {l.message}
            </li>
          ))}
        </ul>
      )}
      {iterations.length > 0 && (
        <Timeline
          run={run}
          selected={selected}
          following={pinned == null}
          onSelect={(n) => setPinned(n === newest && live ? null : n)}
          onPrev={() => step(-1)}
          onNext={() => step(1)}
          onFollow={() => setPinned(null)}
          replay={replay}
        />
      )}
      {it ? (
        <div className="iter-grid" data-testid="iteration" data-iteration={it.n}>
          <StreamPanel it={it} reflectOn={run.reflect} live={live} workspace={workspace} />
          {workspace ? (
            <div className="iter-side">
              {anyTools && <ToolCallsPanel it={it} live={live} />}
              <ValidationPanel run={run} it={it} live={live} />
              {(run.auditor || it.audit || it.auditing) && <AuditPanel it={it} live={live} />}
            </div>
          ) : (
            <div className="iter-side">
              <CodePanel key={`${run.runId}`} it={it} prev={prev} isFinal={isFinal} language={run.language} />
              <ExecPanel it={it} live={live} />
            </div>
          )}
        </div>
      ) : (
        live && <p className="muted waiting pulse">{s.waiting}</p>
      )}
      {workspace && <ChangesPanel run={run} />}
    </section>
  )
}
