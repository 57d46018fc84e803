import { useState } from 'react'
import type { IterationView } from '../../stores/runModel'
import { strings } from '../../strings'
import { CodeView } from '../common/CodeView'

/**
 * How a finished run's last code is labelled: "final" only when it worked;
 * the code of a run that failed, hit its limit or was stopped is its "last"
 * attempt, never its final code.
 */
export type CodeEnding = 'final' | 'last'

interface Props {
  it: IterationView
  prev?: IterationView
  ending?: CodeEnding
  language: string
  /** Wrap long lines instead of scrolling sideways (the default: a projector or a narrow column has no room to scroll). */
  wrap?: boolean
}

/** CodePanel: the iteration's code, highlighted, or its diff to the previous iteration's code. */
export function CodePanel({ it, prev, ending, language, wrap = true }: Props) {
  const s = strings.live
  const [tab, setTab] = useState<'code' | 'diff'>('code')
  const [copied, setCopied] = useState(false)
  const canDiff = prev?.code != null && it.code != null
  const showDiff = tab === 'diff' && canDiff
  const title = ending === 'final' ? s.finalCode : ending === 'last' ? s.lastAttempt(it.n) : `${s.code} #${it.n}`

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(it.code ?? '')
      setCopied(true)
      setTimeout(() => setCopied(false), 1500)
    } catch {
      // clipboard refused (insecure context): nothing useful to say
    }
  }

  return (
    <section className="card code-card" aria-label={title} data-testid="code-panel" data-ending={ending}>
      <div className="card-head">
        <h3 className="card-title">{title}</h3>
        {prev && (
          <div className="tabs" role="tablist">
            <button type="button" role="tab" aria-selected={!showDiff} className="tab" onClick={() => setTab('code')}>
              {s.code}
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={showDiff}
              className="tab"
              onClick={() => setTab('diff')}
              disabled={!canDiff}
              data-testid="diff-tab"
            >
              {s.diff(prev.n)}
            </button>
          </div>
        )}
        {it.code && (
          <button type="button" className="btn btn-ghost btn-small" onClick={copy}>
            {copied ? s.copied : s.copy}
          </button>
        )}
      </div>
      {it.code != null && it.code !== '' ? (
        <CodeView
          code={it.code}
          language={it.language || language}
          original={showDiff ? prev?.code : undefined}
          label={title}
          wrap={wrap}
          testId={ending === 'final' ? 'final-code' : 'code'}
        />
      ) : (
        <p className="muted empty-code">{it.formatError ? s.noCode : s.noCodeYet}</p>
      )}
    </section>
  )
}
