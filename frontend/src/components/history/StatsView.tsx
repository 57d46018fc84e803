import { useEffect } from 'react'
import { errorWords } from '../../api'
import type { StatsGroup } from '../../api'
import { count, duration, fixed } from '../../format'
import { useStats, useStores } from '../../stores'
import { strings } from '../../strings'

const pct = (x: number) => `${Math.round(x * 100)}%`

/** StatsView: the history summarised per provider and model — a table and a chart. */
export function StatsView() {
  const stores = useStores()
  const s = strings.stats
  const stats = useStats((x) => x.stats)
  const loading = useStats((x) => x.loading)
  const error = useStats((x) => x.error)

  useEffect(() => {
    void stores.stats.getState().load()
  }, [stores])

  const groups = stats?.groups ?? []
  // Some runs had tests: a column says how many of their tests passed.
  const tested = (stats?.total.tested_runs ?? 0) > 0
  return (
    <section className="stats-page" data-testid="stats-view">
      <div className="stats-head">
        <h2 className="compare-title">{s.title}</h2>
        <button type="button" className="btn btn-small" onClick={() => void stores.stats.getState().load()} disabled={loading} data-testid="stats-refresh">
          {loading ? s.loading : s.refresh}
        </button>
      </div>
      {error && (
        <p className="notice notice-error" role="alert">
          <strong>{s.failed}:</strong> {errorWords(error)}
        </p>
      )}
      {!stats && loading && <p className="muted pulse">{s.loading}</p>}
      {stats && groups.length === 0 && <p className="muted">{s.empty}</p>}
      {stats && groups.length > 0 && (
        <>
          <div className="table-wrap card">
            <table className="data-table" data-testid="stats-table">
              <thead>
                <tr>
                  <th scope="col">
                    {s.provider} / {s.model}
                  </th>
                  <th scope="col" className="num">{s.runs}</th>
                  <th scope="col" className="num">{s.successes}</th>
                  <th scope="col" className="num">{s.failures}</th>
                  <th scope="col" className="num">{s.cancelled}</th>
                  <th scope="col" className="num">{s.timeouts}</th>
                  <th scope="col" className="num">{s.successRate}</th>
                  <th scope="col" className="num">{s.avgDuration}</th>
                  <th scope="col" className="num">{s.medianDuration}</th>
                  <th scope="col" className="num">{s.avgIterations}</th>
                  <th scope="col" className="num">{s.tokens}</th>
                  <th scope="col" className="num">{s.cost}</th>
                  {tested && <th scope="col" className="num">{strings.tests.column}</th>}
                </tr>
              </thead>
              <tbody>
                {groups.map((g) => (
                  <Row key={`${g.provider}/${g.model}`} g={g} tested={tested} />
                ))}
              </tbody>
              <tfoot>
                <Row g={stats.total} total tested={tested} />
              </tfoot>
            </table>
          </div>
          <StatsChart groups={groups} />
        </>
      )}
    </section>
  )
}

function Row({ g, total = false, tested = false }: { g: StatsGroup; total?: boolean; tested?: boolean }) {
  const s = strings.stats
  return (
    <tr data-testid={total ? 'stats-total' : 'stats-row'} data-provider={g.provider ?? ''}>
      {total ? (
        <th scope="row">{s.total}</th>
      ) : (
        <th scope="row">
          <span className="row-provider">{g.provider}</span>
          <span className="row-model muted">{g.model}</span>
        </th>
      )}
      <td className="num mono" data-col="runs">{g.runs}</td>
      <td className="num mono" data-col="successes">{g.successes}</td>
      <td className="num mono" data-col="failures">{g.failures}</td>
      <td className="num mono">{g.cancelled}</td>
      <td className="num mono">{g.exec_timeouts}</td>
      <td className="num mono" data-col="success_rate">{pct(g.success_rate)}</td>
      <td className="num mono">{duration(g.avg_duration_ms)}</td>
      <td className="num mono">{duration(g.median_duration_ms)}</td>
      <td className="num mono">{g.avg_iterations_to_success ? fixed(g.avg_iterations_to_success, 1) : '—'}</td>
      <td className="num mono pair">
        {count(g.input_tokens)} / {count(g.output_tokens)}
      </td>
      <td className="num mono">{g.cost_usd > 0 ? `$${fixed(g.cost_usd, 2)}` : '—'}</td>
      {tested && (
        <td className="num mono" data-col="tests">
          {g.tested_runs ? `${g.tests_passed ?? 0}/${g.tests_total ?? 0}` : '—'}
        </td>
      )}
    </tr>
  )
}

/** StatsChart: success rate and average duration per provider/model, as horizontal bars (plain SVG). */
export function StatsChart({ groups }: { groups: StatsGroup[] }) {
  const s = strings.stats
  const maxMs = Math.max(1, ...groups.map((g) => g.avg_duration_ms))
  const rowH = 24
  const labelW = 170
  const barW = 220
  const gap = 70
  const height = groups.length * rowH + 30
  const width = labelW + 2 * barW + gap + 60
  return (
    <figure className="card chart" data-testid="stats-chart">
      <figcaption className="card-title">{s.chart}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" style={{ maxWidth: `${width / 16}rem` }} role="img" aria-label={s.chart}>
        <text x={labelW} y={14} className="chart-head">
          {s.successRate}
        </text>
        <text x={labelW + barW + gap} y={14} className="chart-head">
          {s.avgDuration}
        </text>
        {groups.map((g, i) => {
          const y = 24 + i * rowH
          const w1 = Math.max(2, g.success_rate * barW)
          const w2 = Math.max(2, (g.avg_duration_ms / maxMs) * barW)
          const x2 = labelW + barW + gap
          return (
            <g key={`${g.provider}/${g.model}`}>
              <text x={labelW - 8} y={y + 12} textAnchor="end" className="chart-label">
                {g.provider} · {g.model}
              </text>
              <rect x={labelW} y={y} width={barW} height={rowH - 8} rx={3} className="bar-track" />
              <rect x={labelW} y={y} width={w1} height={rowH - 8} rx={3} className="bar-ok" />
              <text x={labelW + w1 + 4} y={y + 12} className="chart-value">
                {pct(g.success_rate)}
              </text>
              <rect x={x2} y={y} width={w2} height={rowH - 8} rx={3} className="bar-iter" />
              <text x={x2 + w2 + 4} y={y + 12} className="chart-value">
                {duration(g.avg_duration_ms)}
              </text>
            </g>
          )
        })}
      </svg>
    </figure>
  )
}
