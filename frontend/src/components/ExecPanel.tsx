import { duration } from '../format'
import type { IterationView } from '../stores/runModel'
import { strings } from '../strings'

/** ExecPanel: what happened when the iteration's code ran. */
export function ExecPanel({ it, live }: { it: IterationView; live: boolean }) {
  const s = strings.live
  const x = it.exec
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
      {!x && live && it.phase === 'executing' && <p className="muted pulse">{s.running}</p>}
      {!x && !(live && it.phase === 'executing') && <p className="muted">{s.notRunYet}</p>}
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
        </>
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
