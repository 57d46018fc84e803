import { memo } from 'react'
import type { WallEntry } from '../../api/gen/wire'
import { elapsedMs, waitSpan, wallState } from '../../classroom'
import { clock, count } from '../../format'
import { useNow } from '../../hooks/useNow'
import { errorText, strings } from '../../strings'

interface WallProps {
  entries: WallEntry[]
  /** The run on the stage ("" = none): its card is marked. */
  spotlight: string
  onOpen(studentId: string): void
}

/**
 * Wall: a card per student — name, status, provider, iteration i/n, the
 * time the run has been going (ticking) and its place in the sandbox queue
 * — fed by the class stream. Cards keep their places (join order), and 40
 * of them fit a 1920×1080 screen.
 */
export function Wall({ entries, spotlight, onOpen }: WallProps) {
  const t = strings.classroom.instructor
  const ticking = entries.some((e) => !e.removed && e.current?.status === 'running')
  // One clock for the whole wall: every running card's elapsed time moves together.
  const now = useNow(ticking, 1000)
  if (entries.length === 0) {
    return (
      <p className="wall-empty muted" data-testid="wall-empty">
        {t.emptyWall}
      </p>
    )
  }
  return (
    <ul className="wall" aria-label={t.wall} data-testid="wall">
      {entries.map((e) => (
        <li key={e.student_id} className="wall-item">
          <WallCard entry={e} elapsed={e.current ? elapsedMs(e.current, now) : 0} onStage={!!spotlight && e.current?.run_id === spotlight} onOpen={onOpen} />
        </li>
      ))}
    </ul>
  )
}

interface CardProps {
  entry: WallEntry
  /** How long its run has been going, by the wall's clock (an ended run's stays put, so its card does not re-render). */
  elapsed: number
  onStage: boolean
  onOpen(studentId: string): void
}

const WallCard = memo(function WallCard({ entry: e, elapsed, onStage, onOpen }: CardProps) {
  const t = strings.classroom.instructor
  const state = wallState(e)
  const r = e.current
  const queued = r && r.status === 'running' ? (r.queue_position ?? 0) : 0
  const wait = queued > 0 ? waitSpan(r?.queue_wait_ms) : null
  // A run a budget stopped says which; other errors keep the status pill alone.
  const budgetStop = r?.error_code?.startsWith('class.quota.') ? errorText(r.error_code, r.error_params, t.budgetStopped) : null
  return (
    <button
      type="button"
      className={`wall-card wall-${state}${onStage ? ' wall-on-stage' : ''}`}
      onClick={() => onOpen(e.student_id)}
      aria-label={t.open(e.name)}
      data-testid="wall-card"
      data-student={e.name}
      data-student-id={e.student_id}
      data-state={state}
      data-run-id={r?.run_id ?? ''}
      data-iteration={r?.iteration ?? 0}
      data-best={e.best && e.best.tests_total > 0 ? `${e.best.tests_passed}/${e.best.tests_total}` : ''}
    >
      <span className="wall-top">
        <span className={`wall-dot wall-dot-${state}`} aria-hidden="true" />
        <span className="wall-name" title={e.name}>
          {e.name}
        </span>
        {onStage && (
          <span className="wall-stage" title={t.onStage}>
            ★
          </span>
        )}
        {e.removed && <span className="tag">{t.removedTag}</span>}
      </span>
      {r ? (
        <>
          <span className="wall-provider" title={r.model ? `${r.provider} · ${r.model}` : r.provider}>
            {r.provider}
            {r.model && <span className="muted"> · {r.model}</span>}
          </span>
          {r.budget_from && (
            <span className="wall-budget tag" data-testid="wall-budget-switch">
              {t.movedFrom(r.budget_from)}
            </span>
          )}
          <span className="wall-progress">
            <span>{t.iteration(r.iteration, r.max_iterations)}</span>
            <span className="wall-time" data-testid="wall-elapsed">
              {clock(elapsed)}
            </span>
          </span>
          <span className="wall-foot">
            <span className={`pill pill-${r.status}`}>{strings.status[r.status] ?? r.status}</span>
            {queued > 0 && (
              <span className="wall-queue" data-testid="wall-queue">
                {t.ahead(queued)}
                {wait && ` · ${strings.classroom.queue.about(wait)}`}
              </span>
            )}
            <span className="wall-usage muted">{t.tokens(count(e.usage.tokens))}</span>
          </span>
          {e.best && <WallBestLine entry={e} />}
          {budgetStop && (
            <span className="wall-stop notice-warn" data-testid="wall-budget-stop" title={budgetStop}>
              {budgetStop}
            </span>
          )}
        </>
      ) : (
        <span className="wall-none muted">{t.noRun}</span>
      )}
    </button>
  )
})

/**
 * WallBestLine: the student's best run on the assignment in force — tests
 * passed (the headline an instructor scans the wall for), the iterations it
 * took and its prompt's length — and, while a run is being judged, the
 * current run's count beside it.
 */
function WallBestLine({ entry: e }: { entry: WallEntry }) {
  const t = strings.classroom.instructor
  const b = e.best!
  const r = e.current
  const all = b.tests_total > 0 && b.tests_passed === b.tests_total
  const now = r && r.status === 'running' && r.run_id !== b.run_id && (r.tests_total ?? 0) > 0 ? t.testsNow(r.tests_passed ?? 0, r.tests_total ?? 0) : null
  return (
    <span className="wall-best" data-testid="wall-best" title={t.bestTitle(b.tests_passed, b.tests_total, b.iterations, b.prompt_chars, b.runs)}>
      {b.tests_total > 0 && (
        <strong className={`wall-best-tests${all ? ' wall-best-all' : ''}`} data-testid="wall-best-tests">
          {t.best(b.tests_passed, b.tests_total)}
        </strong>
      )}
      <span className="muted">{t.bestMeta(b.iterations, b.prompt_chars)}</span>
      {now && <span className="muted"> · {now}</span>}
    </span>
  )
}
