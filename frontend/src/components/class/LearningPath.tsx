import { useEffect, useState } from 'react'
import { errorWords, shownError, type ShownError } from '../../api'
import type { LearningPath as Path, PathIteration, PathRun, WallEntry } from '../../api/gen/wire'
import { count, duration, stamp } from '../../format'
import { useStores } from '../../stores'
import { strings } from '../../strings'
import { Markdown } from '../common/Markdown'

/**
 * LearningPath (the instructor, from a student's card on the wall): every
 * run the student made in the class, oldest first — the prompt, the
 * assignment it belongs to, each iteration with its error, the model's
 * reflection, its code and tokens — and, per assignment, how long the
 * student took to reach a working program. It is read again whenever the
 * student's wall line moves (a run starts, an iteration begins, a run ends).
 */
export function LearningPath({ entry }: { entry: WallEntry }) {
  const stores = useStores()
  const t = strings.classroom.path
  const [path, setPath] = useState<Path | null>(null)
  const [error, setError] = useState<ShownError | null>(null)
  const [reload, setReload] = useState(0)
  const cur = entry.current
  const moved = `${cur?.run_id ?? ''}:${cur?.status ?? ''}:${cur?.iteration ?? 0}`

  useEffect(() => {
    let live = true
    stores.api
      .call('LearningPath', { id: entry.student_id })
      .then((p) => {
        if (!live) return
        setPath(p)
        setError(null)
      })
      .catch((err: unknown) => live && setError(shownError(err)))
    return () => {
      live = false
    }
  }, [stores, entry.student_id, moved, reload])

  const runs = path?.runs ?? []
  return (
    <section className="learning-path" aria-label={t.title(entry.name)} data-testid="learning-path" data-student={entry.name} data-loaded={path ? 'yes' : 'no'}>
      <div className="path-head">
        <h4 className="path-title">{t.title(entry.name)}</h4>
        {path && <span className="muted small" data-testid="path-totals">{t.totals(runs.length, count(path.input_tokens), count(path.output_tokens))}</span>}
        <button type="button" className="btn btn-small btn-ghost" onClick={() => setReload((n) => n + 1)} data-testid="path-refresh">
          ↻ {t.refresh}
        </button>
      </div>
      {error && (
        <p className="notice notice-error" role="alert" data-testid="path-error-load">
          <strong>{t.failed}:</strong> {errorWords(error)}
        </p>
      )}
      {!path && !error && <p className="muted">{t.loading}</p>}
      {path && runs.length === 0 && <p className="muted empty-run">{t.empty}</p>}
      {path && path.assignments.length > 0 && (
        <div className="path-assignments" data-testid="path-assignments">
          <span className="field-label">{t.assignments}</span>
          <ul>
            {path.assignments.map((a) => (
              <li key={a.assignment} data-testid="path-assignment" data-working-ms={a.working_after_ms}>
                <strong>{a.assignment || t.noAssignment}</strong> <span className="muted">· {t.runs(a.runs)} · </span>
                {a.working_after_ms > 0 ? <span className="path-ok">{t.workingAfter(duration(a.working_after_ms))}</span> : <span className="muted">{t.notWorking}</span>}
              </li>
            ))}
          </ul>
        </div>
      )}
      {runs.length > 0 && (
        <ol className="path-runs">
          {runs.map((r) => (
            <PathRunItem key={r.run_id} run={r} />
          ))}
        </ol>
      )}
    </section>
  )
}

function PathRunItem({ run: r }: { run: PathRun }) {
  const t = strings.classroom.path
  return (
    <li className="path-run" data-testid="path-run" data-run-id={r.run_id} data-status={r.status}>
      <div className="path-run-head">
        <span className="muted small">{stamp(r.started_at)}</span>
        <span className="tag" data-testid="path-run-assignment">
          {r.assignment || t.noAssignment}
        </span>
        <span className="path-provider">
          {r.provider}
          {r.model && <span className="muted"> · {r.model}</span>}
        </span>
        <span className={`pill pill-${r.status}`}>{strings.status[r.status] ?? r.status}</span>
        <span className="muted small">{t.tokens(count(r.input_tokens), count(r.output_tokens))}</span>
        {r.working_after_ms > 0 && <span className="path-ok small">{t.workingAfter(duration(r.working_after_ms))}</span>}
      </div>
      <div className="path-prompt-block">
        <span className="field-label">{t.prompt}</span>
        <pre className="path-prompt" data-testid="path-prompt">
          {r.prompt}
        </pre>
      </div>
      {r.iterations.length === 0 ? (
        <p className="muted small">
          {t.noIterations} {r.error}
        </p>
      ) : (
        <ol className="path-iterations">
          {r.iterations.map((it) => (
            <PathIterationItem key={it.n} it={it} />
          ))}
        </ol>
      )}
    </li>
  )
}

function PathIterationItem({ it }: { it: PathIteration }) {
  const t = strings.classroom.path
  return (
    <li className={`path-iteration path-iteration-${it.status}`} data-testid="path-iteration" data-iteration={it.n} data-status={it.status}>
      <div className="path-iteration-head">
        <strong>{t.iteration(it.n)}</strong>
        <span className={`pill pill-${it.status}`}>{strings.status[it.status] ?? it.status}</span>
        {it.error_kind && it.error_kind !== 'error' && <span className="tag">{it.error_kind}</span>}
        {(it.tests_total ?? 0) > 0 && (
          <span className={`tag${it.tests_passed === it.tests_total ? ' path-ok' : ''}`} data-testid="path-tests">
            {t.tests(it.tests_passed ?? 0, it.tests_total ?? 0)}
          </span>
        )}
        {it.duration_ms > 0 && <span className="muted small">{t.took(duration(it.duration_ms))}</span>}
        <span className="muted small">{t.tokens(count(it.input_tokens), count(it.output_tokens))}</span>
      </div>
      {it.error && (
        <code className="path-error" data-testid="path-error">
          {it.error}
        </code>
      )}
      {it.reflection && (
        <div className="path-reflection">
          <span className="field-label">{t.reflection}</span>
          <Markdown text={it.reflection} testId="path-reflection" />
        </div>
      )}
      {it.code && (
        <details className="path-code">
          <summary>{t.code}</summary>
          <pre data-testid="path-code">{it.code}</pre>
        </details>
      )}
    </li>
  )
}
