import { useEffect, useMemo, useRef } from 'react'
import { answerMarkdown } from '../../answer'
import type { IterationView } from '../../stores/runModel'
import { errorText, strings } from '../../strings'
import { Markdown } from '../common/Markdown'

interface Props {
  it: IterationView
  reflectOn: boolean
  live: boolean
  /** The run's language: a structured answer's code is highlighted as it. */
  language?: string
  /** The view follows the run: keep the newest words in sight. */
  following?: boolean
  /** Workspace mode: no reflection step (the validation log goes back to the model instead). */
  workspace?: boolean
}

/** StreamPanel: the model's words for one iteration — generation, then reflection, in different colours. */
export function StreamPanel({ it, reflectOn, live, language = 'python', following = false, workspace = false }: Props) {
  const s = strings.live
  const body = useRef<HTMLDivElement>(null)
  const generating = live && it.phase === 'generating'
  const reflecting = live && it.reflecting
  // Prose and code alike, one Markdown document whatever the provider's format.
  const answer = useMemo(() => answerMarkdown(it.generation, it.language || language, generating), [it.generation, it.language, language, generating])

  // Keep the newest words in sight while they stream: always while the
  // view follows the run, else only while the reader is already near the
  // end. (The panel is keyed by iteration: each one opens at its start.)
  const streaming = generating || reflecting
  useEffect(() => {
    const el = body.current
    if (!el || !streaming) return
    if (following || el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight
  }, [it.generation, it.reflection, streaming, following])

  return (
    <section className="card stream" aria-label={s.modelOutput}>
      <h3 className="card-title">{s.modelOutput}</h3>
      <div className="stream-body" ref={body} data-testid="stream">
        <div className="stream-gen" data-testid="stream-generation">
          <span className="stream-tag tag-gen">{s.generation}</span>
          {(answer || generating) && <Markdown text={answer} caret={generating} className="stream-text" />}
          {!it.generation && !generating && <p className="muted">—</p>}
        </div>
        {it.formatError && (
          <p className="stream-format-error" role="alert">
            <strong>{s.formatError}:</strong> {errorText(it.formatCode, it.formatParams, it.formatError)}
          </p>
        )}
        {(it.reflection || reflecting) && (
          <div className="stream-refl" data-testid="stream-reflection">
            <span className="stream-tag tag-refl">{s.reflection}</span>
            <Markdown text={it.reflection} caret={reflecting} className="stream-text" />
          </div>
        )}
        {!workspace && !it.reflection && !reflecting && it.phase === 'error' && !live && (
          <p className="muted small">{reflectOn ? s.noReflection : s.reflectionOff}</p>
        )}
      </div>
    </section>
  )
}
