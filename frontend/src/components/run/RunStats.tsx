import { count, clock } from '../../format'
import { useNow } from '../../hooks/useNow'
import type { RunState } from '../../stores/runModel'
import { isFinished } from '../../stores/runModel'
import { strings } from '../../strings'
import { StatusPill } from '../common/StatusPill'

function elapsedMs(run: RunState, now: number): number {
  if (run.durationMs != null && isFinished(run)) return run.durationMs
  if (!run.startedAt) return 0
  const start = Date.parse(run.startedAt)
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now
  return Number.isNaN(start) ? 0 : Math.max(0, end - start)
}

/** RunStats: who is running, status, iteration progress, elapsed time and tokens. */
export function RunStats({ run }: { run: RunState }) {
  const live = !isFinished(run)
  const now = useNow(live && !!run.startedAt, 250)
  const done = run.iterations.filter((i) => i.phase === 'success' || i.phase === 'error').length
  const current = run.iterations.length
  const max = Math.max(run.maxIterations, current, 1)
  const pct = Math.round((100 * (live ? done + (current > done ? 0.5 : 0) : done)) / max)
  const s = strings.live
  return (
    <div className="run-stats">
      <div className="run-id">
        <div className="run-who">
          <span className="run-provider">{run.provider || '…'}</span>
          {run.model && <span className="run-model">{run.model}</span>}
          <StatusPill status={run.status} />
          {run.mode === 'workspace' && (
            <span className="tag tag-mode" data-testid="mode-badge">
              {s.workspaceBadge}
            </span>
          )}
          {run.allowNetwork && (
            <span className="badge-net" role="note" title={s.networkBadgeTitle} data-testid="network-badge">
              <span aria-hidden="true">⚠</span> {s.networkBadge}
            </span>
          )}
        </div>
        {run.prompt && (
          <p className="run-prompt" title={run.prompt} data-testid="run-prompt">
            {run.prompt.split('\n')[0]}
          </p>
        )}
      </div>
      <div className="run-progress" title={s.iterationOf(current, run.maxIterations)}>
        <span className="stat-label">{current > 0 ? s.iterationOf(current, run.maxIterations) : s.iteration}</span>
        <div
          className="bar"
          role="progressbar"
          aria-label={s.iteration}
          aria-valuemin={0}
          aria-valuemax={max}
          aria-valuenow={done}
          data-testid="iteration-progress"
        >
          <div className={`bar-fill bar-${run.status}`} style={{ width: `${Math.min(100, pct)}%` }} />
        </div>
      </div>
      <div className="stat">
        <span className="stat-label">{s.elapsed}</span>
        <span className="stat-value mono" data-testid="elapsed">
          {clock(elapsedMs(run, now))}
        </span>
      </div>
      <div className="stat">
        <span className="stat-label">{s.tokens}</span>
        <span className="stat-value mono" data-testid="tokens">
          {s.tokensInOut(count(run.inputTokens), count(run.outputTokens))}
        </span>
      </div>
    </div>
  )
}
