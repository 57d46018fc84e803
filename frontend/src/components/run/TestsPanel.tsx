import type { TestResult, TestsPayload } from '../../api/gen/event'
import { strings } from '../../strings'

/**
 * TestsPanel: how the run's tests judged one iteration's program — a
 * compact row of ✓ and ✗ with the count, then each failing test, the
 * first visible one opened. A student's copy of a hidden test holds its
 * verdict only; the instructor's holds the evidence, shown only when the
 * instructor opens it (never opened by itself, for the projector's sake).
 */
export function TestsPanel({ tests }: { tests?: TestsPayload }) {
  if (!tests) return null
  const s = strings.tests
  const failing = tests.results.filter((r) => r.verdict !== 'passed')
  const opened = failing.find((r) => !r.hidden)?.index
  const all = tests.total > 0 && tests.passed === tests.total
  return (
    <section className="card tests" aria-label={s.row.title} data-testid="tests">
      <div className="card-head">
        <h3 className="card-title">{s.row.title}</h3>
        <span className={`pill ${all ? 'exec-ok' : 'exec-error'}`} data-testid="tests-count">
          {s.row.passed(tests.passed, tests.total)}
        </span>
      </div>
      <ol className="tests-row" data-testid="tests-row">
        {tests.results.map((r) => (
          <li
            key={r.index}
            className={r.verdict === 'passed' ? 'test-ok' : 'test-fail'}
            data-verdict={r.verdict}
            title={`${label(r)}: ${s.verdict[r.verdict] ?? r.verdict}`}
            aria-label={`${label(r)}: ${s.verdict[r.verdict] ?? r.verdict}`}
          >
            {r.verdict === 'passed' ? '✓' : '✗'}
          </li>
        ))}
      </ol>
      {failing.map((r) => (
        <details key={r.index} className="test-case" open={r.index === opened} data-testid={`test-${r.index}`}>
          <summary>
            {label(r)}: <strong>{s.verdict[r.verdict] ?? r.verdict}</strong>
          </summary>
          <Evidence r={r} />
        </details>
      ))}
    </section>
  )
}

function label(r: TestResult): string {
  const s = strings.tests.row
  return r.name ? `${s.test(r.index)} (${r.name})` : s.test(r.index)
}

function Evidence({ r }: { r: TestResult }) {
  const s = strings.tests.row
  if (r.hidden && (r.redacted || !hasEvidence(r))) return <p className="muted small">{s.hiddenNote}</p>
  return (
    <dl className="test-evidence">
      {r.hidden && <p className="muted small">{s.hiddenFromStudents}</p>}
      {r.input ? <Block title={r.kind === 'assert' ? s.code : s.input} text={r.input} /> : null}
      {r.diff ? (
        <Block title={s.diff} text={r.diff} />
      ) : (
        <>
          {r.expected != null && r.expected !== '' && <Block title={s.expected} text={r.expected} />}
          {r.expected != null && r.expected !== '' && <Block title={s.actual} text={r.actual ?? ''} />}
        </>
      )}
      {r.detail ? <Block title={s.detail} text={r.detail} /> : null}
    </dl>
  )
}

function hasEvidence(r: TestResult): boolean {
  return !!(r.input || r.expected || r.actual || r.diff || r.detail)
}

function Block({ title, text }: { title: string; text: string }) {
  return (
    <div>
      <dt>{title}</dt>
      <dd>
        <pre className="mono">{text}</pre>
      </dd>
    </div>
  )
}
