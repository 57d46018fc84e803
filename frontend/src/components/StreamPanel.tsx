import { useEffect, useMemo, useRef } from 'react'
import { readableAnswer } from '../answer'
import type { IterationView } from '../stores/runModel'
import { strings } from '../strings'

interface Props {
  it: IterationView
  reflectOn: boolean
  live: boolean
  /** Workspace mode: no reflection step (the validation log goes back to the model instead). */
  workspace?: boolean
}

/** StreamPanel: the model's words for one iteration — generation, then reflection, in different colours. */
export function StreamPanel({ it, reflectOn, live, workspace = false }: Props) {
  const s = strings.live
  const body = useRef<HTMLDivElement>(null)
  const answer = useMemo(() => readableAnswer(it.generation), [it.generation])
  const generating = live && it.phase === 'generating'
  const reflecting = live && it.reflecting

  // Keep the newest words in sight while streaming, unless the reader scrolled up.
  useEffect(() => {
    const el = body.current
    if (!el || !live) return
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight
  }, [it.generation, it.reflection, live])

  const caret = <span className="caret" aria-hidden="true" />
  return (
    <section className="card stream" aria-label={s.modelOutput}>
      <h3 className="card-title">{s.modelOutput}</h3>
      <div className="stream-body" ref={body} data-testid="stream">
        <div className="stream-gen" data-testid="stream-generation">
          <span className="stream-tag tag-gen">{s.generation}</span>
          {(answer.explanation || (generating && !answer.code)) && (
            <p className="stream-text">
              {answer.explanation}
              {generating && !answer.code && caret}
            </p>
          )}
          {answer.code && (
            <pre className="stream-code">
              {answer.code}
              {generating && caret}
            </pre>
          )}
          {!it.generation && !generating && <p className="muted">—</p>}
        </div>
        {it.formatError && (
          <p className="stream-format-error" role="alert">
            <strong>{s.formatError}:</strong> {it.formatError}
          </p>
        )}
        {(it.reflection || reflecting) && (
          <div className="stream-refl" data-testid="stream-reflection">
            <span className="stream-tag tag-refl">{s.reflection}</span>
            <p className="stream-text">
              {it.reflection}
              {reflecting && <span className="caret caret-refl" aria-hidden="true" />}
            </p>
          </div>
        )}
        {!workspace && !it.reflection && !reflecting && it.phase === 'error' && !live && (
          <p className="muted small">{reflectOn ? s.noReflection : s.reflectionOff}</p>
        )}
      </div>
    </section>
  )
}
