import { useLayoutEffect, useRef } from 'react'
import { duration } from '../../format'
import { execNote, execOutcome, strings } from '../../strings'
import type { ExecResult, IterationView } from '../../stores/runModel'
import { Pictures } from './Pictures'

/**
 * ExecPanel: what happened when the iteration's code ran — while it runs,
 * what it has printed so far; once it ended, the outcome and the kept
 * output. stdin is the run's input for the code ("" = none).
 */
export function ExecPanel({ it, live, runId, stdin = '' }: { it: IterationView; live: boolean; runId: string; stdin?: string }) {
  const s = strings.live
  const x = it.exec
  const running = live && it.phase === 'executing'
  const o = it.output
  const printed = !!o && (o.stdout !== '' || o.stderr !== '')
  return (
    <section className="card exec" aria-label={s.output} data-testid="exec">
      <div className="card-head">
        <h3 className="card-title">{s.output}</h3>
        {x && (
          <span className={`pill exec-${x.status}`} data-testid="exec-status" data-status={x.status}>
            {s.exec.status[x.status] ?? x.status}
          </span>
        )}
        {/* On the title's line, not a line of its own: on a projector the output needs the room. */}
        {!x && running && (
          <span className="pill pill-running pulse" data-testid="exec-running">
            {s.running}
          </span>
        )}
      </div>
      {!x && printed && (
        // Until exec_finished: what the program printed so far (and, if it never came, all there is).
        <div className="exec-live" data-testid="exec-live">
          <OutputStreams stdout={o.stdout} stderr={o.stderr} follow={running} />
          {(o.stdoutCapped || o.stderrCapped) && <p className="muted small">{s.liveCapped}</p>}
          {!running && <p className="muted small">{s.unfinished}</p>}
        </div>
      )}
      {!x && !running && !printed && <p className="muted">{s.notRunYet}</p>}
      {x && (
        <>
          <dl className="facts">
            <div>
              <dt>{s.exitCode}</dt>
              <dd className="mono" data-testid="exit-code">
                {x.exitCode}
              </dd>
            </div>
            <div>
              <dt>{s.duration}</dt>
              <dd className="mono">{duration(x.durationMs)}</dd>
            </div>
            <div>
              <dt>{s.isolation}</dt>
              <dd className="mono" data-testid="isolation">
                {x.isolation || '—'}
              </dd>
            </div>
            {x.protections && (
              <div>
                <dt>{s.protections}</dt>
                <dd className="protections" data-testid="protections">
                  <Protections on={x.protections} />
                </dd>
              </div>
            )}
            {x.signal && (
              <div>
                <dt>{s.signal}</dt>
                <dd className="mono">{x.signal}</dd>
              </div>
            )}
          </dl>
          {x.status !== 'ok' && (
            <p className="exec-desc" data-testid="exec-desc">
              {execOutcome(x)}
            </p>
          )}
          {warnings(x).map((w) => (
            <p key={w} className="exec-warning small" role="note" data-testid="sandbox-warning">
              ⚠ {w}
            </p>
          ))}
          <OutputStreams stdout={x.stdout} stderr={x.stderr} />
          {x.truncated && <p className="muted small">{s.truncated}</p>}
          <Pictures runId={runId} iteration={it.n} images={x.images} skipped={skipped(x)} />
        </>
      )}
      {/* What the program was given: after what it printed, which matters more on a projector. */}
      {stdin && (x || running || printed) && (
        <details className="out out-stdin" data-testid="exec-stdin">
          <summary className="out-label">{s.stdin}</summary>
          <pre>{stdin}</pre>
        </details>
      )}
    </section>
  )
}

/** The protections in the backend's order (Go's JSON map is sorted), each named in the UI's language. */
const protectionOrder = ['files', 'network', 'processes', 'memory', 'signals']

function Protections({ on }: { on: Record<string, boolean> }) {
  const w = strings.live.exec
  const names = [...protectionOrder.filter((n) => n in on), ...Object.keys(on).filter((n) => !protectionOrder.includes(n))]
  return (
    <>
      {names.map((n) => (
        <span
          key={n}
          className={`protection ${on[n] ? 'protection-on' : 'protection-off'}`}
          title={`${w.protectionHints[n] ?? n}: ${on[n] ? w.applied : w.missing}`}
          data-testid={`protection-${n}`}
        >
          {w.protections[n] ?? n} {on[n] ? '✓' : '✗'}
        </span>
      ))}
    </>
  )
}

/** warnings are an execution's notes in the UI's language (the backend's English for events recorded before notes). */
function warnings(x: ExecResult): string[] {
  if (!x.notes) return x.warnings ?? []
  return x.notes.map((n, i) => execNote(n, x.warnings?.[i]))
}

/** skipped: the pictures left out, and why, in the UI's language. */
function skipped(x: ExecResult): string[] {
  if (!x.imageNotes) return x.imagesSkipped
  return x.imageNotes.map((n, i) => execNote(n, x.imagesSkipped[i]))
}

/**
 * OutputStreams: a program's stdout and stderr, each labelled, omitted when
 * empty. testIdPrefix tells an execution's streams ("stdout") from a
 * validation command's ("validation-stdout"). follow (a program still
 * printing) keeps each box scrolled to its newest line unless the user
 * scrolled up in it.
 */
export function OutputStreams({ stdout, stderr, testIdPrefix = '', follow = false }: { stdout?: string; stderr?: string; testIdPrefix?: string; follow?: boolean }) {
  const s = strings.live
  return (
    <>
      {stdout && (
        <div className="out">
          <span className="out-label">{s.stdout}</span>
          <FollowedPre className="out-stdout" testId={`${testIdPrefix}stdout`} follow={follow} text={stdout} />
        </div>
      )}
      {stderr && (
        <div className="out">
          <span className="out-label out-label-err">{s.stderr}</span>
          <FollowedPre className="out-stderr" testId={`${testIdPrefix}stderr`} follow={follow} text={stderr} />
        </div>
      )}
    </>
  )
}

/** FollowedPre shows text, scrolled to its end whenever it grows while follow is on and the user has not scrolled up in it. */
function FollowedPre({ className, testId, follow, text }: { className: string; testId: string; follow: boolean; text: string }) {
  const ref = useRef<HTMLPreElement>(null)
  const atEnd = useRef(true)
  useLayoutEffect(() => {
    const el = ref.current
    if (follow && el && atEnd.current) el.scrollTop = el.scrollHeight
  }, [follow, text])
  const onScroll = () => {
    const el = ref.current
    if (el) atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 4
  }
  return (
    <pre className={className} data-testid={testId} ref={ref} onScroll={onScroll}>
      {text}
    </pre>
  )
}
