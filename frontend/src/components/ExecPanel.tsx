import { duration } from '../format'
import type { IterationView } from '../stores/runModel'
import { strings } from '../strings'
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
          <span className={`pill exec-${x.status}`} data-testid="exec-status">
            {x.status}
          </span>
        )}
      </div>
      {!x && running && <p className="muted pulse">{s.running}</p>}
      {!x && printed && (
        // Until exec_finished: what the program printed so far (and, if it never came, all there is).
        <div className="exec-live" data-testid="exec-live">
          <OutputStreams stdout={o.stdout} stderr={o.stderr} />
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
                <dd className="mono" data-testid="protections">
                  {Object.entries(x.protections)
                    .map(([name, on]) => `${name} ${on ? '✓' : '✗'}`)
                    .join('  ')}
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
          {x.description && x.status !== 'ok' && <p className="exec-desc">{x.description}</p>}
          {x.warnings?.map((w) => (
            <p key={w} className="exec-warning small" role="note" data-testid="sandbox-warning">
              ⚠ {w}
            </p>
          ))}
          <OutputStreams stdout={x.stdout} stderr={x.stderr} />
          {x.truncated && <p className="muted small">{s.truncated}</p>}
          <Pictures runId={runId} iteration={it.n} images={x.images} skipped={x.imagesSkipped} />
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

/**
 * OutputStreams: a program's stdout and stderr, each labelled, omitted when
 * empty. testIdPrefix tells an execution's streams ("stdout") from a
 * validation command's ("validation-stdout").
 */
export function OutputStreams({ stdout, stderr, testIdPrefix = '' }: { stdout?: string; stderr?: string; testIdPrefix?: string }) {
  const s = strings.live
  return (
    <>
      {stdout && (
        <div className="out">
          <span className="out-label">{s.stdout}</span>
          <pre className="out-stdout" data-testid={`${testIdPrefix}stdout`}>
            {stdout}
          </pre>
        </div>
      )}
      {stderr && (
        <div className="out">
          <span className="out-label out-label-err">{s.stderr}</span>
          <pre className="out-stderr" data-testid={`${testIdPrefix}stderr`}>
            {stderr}
          </pre>
        </div>
      )}
    </>
  )
}
