import { useEffect, useMemo, useState } from 'react'
import { useShallow } from 'zustand/shallow'
import { errorWords } from '../../api'
import type { ComparisonRow, RunRequest } from '../../api'
import { count, duration, fixed } from '../../format'
import { useClassroom, useCompare, useRepeat, useRuns, useStores } from '../../stores'
import { visibleRows, type CompareColumn } from '../../stores/compare'
import { isFinished } from '../../stores/runModel'
import { strings } from '../../strings'
import { ExportMenu } from '../history/ExportMenu'
import { RunView } from '../run/RunView'
import { RepeatPanel } from './RepeatPanel'
import { ScriptDiff } from './ScriptDiff'
import { StatusPill } from '../common/StatusPill'

/**
 * CompareView: one live column per provider (a RunView each), then — once
 * every column has finished — the comparison table, a chart of time and
 * iterations, and a diff between any two final scripts.
 */
export function CompareView() {
  const stores = useStores()
  const c = strings.compare
  const sessionId = useCompare((x) => x.sessionId)
  const columns = useCompare((x) => x.columns)
  const prompt = useCompare((x) => x.prompt)
  const rerunError = useCompare((x) => x.rerunError)
  const workspace = useCompare((x) => x.mode === 'workspace')
  // "done" per column, as a string so the selector result compares by value.
  const done = useRuns((r) => columns.map((col) => (r.runs[col.runId] && isFinished(r.runs[col.runId]) ? '1' : '0')).join(''))
  const allDone = columns.length > 0 && !done.includes('0')
  const anyCode = useRuns((r) => columns.some((col) => !!r.runs[col.runId]?.finalCode))
  const anyRunning = done.includes('0')
  const runKey = columns.map((x) => x.runId).join(',')
  const request = useCompare((x) => x.request)
  const canRepeat = !workspace && request != null

  useEffect(() => {
    if (allDone) void stores.compare.getState().loadRows()
  }, [allDone, runKey, stores])

  if (!sessionId) return null
  return (
    <section className="compare" data-testid="compare-view" data-session-id={sessionId}>
      <div className="compare-head">
        <div>
          <h2 className="compare-title">{c.title(columns.length)}</h2>
          <p className="muted small compare-prompt" title={prompt}>
            {prompt.split('\n')[0]}
          </p>
          {workspace && (
            <p className="muted small compare-note" data-testid="compare-workspace-note">
              {c.workspaceNote}
            </p>
          )}
        </div>
        <div className="compare-actions">
          {anyRunning && (
            <button type="button" className="btn btn-danger btn-small" onClick={() => void stores.compare.getState().cancelAll()} data-testid="cancel-all">
              {c.cancelAll}
            </button>
          )}
          {allDone && canRepeat && <RepeatOpenButton />}
          {allDone && <ExportMenu sessionId={sessionId} workspace={workspace} hasCode={anyCode} />}
        </div>
      </div>
      {canRepeat && request && <RepeatSlot request={request} providers={columns.map((col) => col.provider)} />}
      {rerunError && (
        <p className="notice notice-error" role="alert">
          <strong>{c.rerunFailed}:</strong> {errorWords(rerunError)}
        </p>
      )}
      <div className="compare-columns" style={{ ['--cols' as string]: columns.length }} data-testid="compare-columns">
        {columns.map((col, i) => (
          <Column key={col.runId} col={col} finished={done[i] === '1'} workspace={workspace} />
        ))}
      </div>
      {allDone ? <Results /> : <p className="muted small">{c.waitingTable}</p>}
    </section>
  )
}

// Repeating is the instructor's (the server refuses a student too), in script mode.

/** RepeatOpenButton offers "repeat to measure" until its form is open or a repeat is shown. */
function RepeatOpenButton() {
  const stores = useStores()
  const student = useClassroom((x) => x.me?.role === 'student')
  const shown = useRepeat((x) => x.open || x.status != null)
  if (student || shown) return null
  return (
    <button type="button" className="btn btn-small" title={strings.repeat.openTitle} onClick={() => stores.repeat.getState().openForm()} data-testid="repeat-open">
      {strings.repeat.open}
    </button>
  )
}

/** RepeatSlot holds the repeat form, its progress and its results while open or running. */
function RepeatSlot({ request, providers }: { request: RunRequest; providers: string[] }) {
  const stores = useStores()
  const student = useClassroom((x) => x.me?.role === 'student')
  const shown = useRepeat((x) => x.open || x.status != null)
  if (student || !shown) return null
  return <RepeatPanel request={request} providers={providers} onClose={() => stores.repeat.getState().close()} />
}

function Column({ col, finished, workspace }: { col: CompareColumn; finished: boolean; workspace: boolean }) {
  const stores = useStores()
  const c = strings.compare
  const cancelling = useRuns((r) => r.runs[col.runId]?.cancelling ?? false)
  const rerunning = useCompare((x) => x.rerunning === col.provider)
  const whyId = `rerun-why-${col.runId}`
  return (
    <div className="compare-column" data-testid="compare-column" data-provider={col.provider} data-run-id={col.runId}>
      <div className="column-bar">
        <span className="column-name">{col.provider}</span>
        {!finished ? (
          <button
            type="button"
            className="btn btn-ghost btn-small btn-danger-text"
            disabled={cancelling}
            onClick={() => void stores.compare.getState().cancel(col.runId)}
            data-testid="cancel-column"
          >
            {cancelling ? strings.run.stopping : c.cancel}
          </button>
        ) : workspace ? (
          // Each provider worked in its own worktree, now committed or kept for
          // inspection: a re-run would need a fresh one, i.e. a new comparison.
          // The title sits on a wrapper too: a disabled button gets no hover in every browser.
          <span className="rerun-off" title={c.rerunWorkspace}>
            <button type="button" className="btn btn-ghost btn-small" disabled aria-describedby={whyId} data-testid="rerun">
              {c.rerun}
            </button>
            <span id={whyId} className="sr-only" data-testid="rerun-why">
              {c.rerunWorkspace}
            </span>
          </span>
        ) : (
          <button
            type="button"
            className="btn btn-ghost btn-small"
            disabled={rerunning}
            onClick={() => void stores.compare.getState().rerun(col.provider)}
            data-testid="rerun"
          >
            {rerunning ? strings.run.starting : c.rerun}
          </button>
        )}
      </div>
      <RunView runId={col.runId} keys />
    </div>
  )
}

function Results() {
  const c = strings.compare
  const rows = useCompare(useShallow((x) => visibleRows(x.rows, x.columns)))
  const loading = useCompare((x) => x.rowsLoading)
  const error = useCompare((x) => x.rowsError)
  const stores = useStores()
  if (error)
    return (
      <div className="notice notice-error" role="alert">
        <strong>{c.tableFailed}:</strong> {errorWords(error)}{' '}
        <button type="button" className="btn btn-small" onClick={() => void stores.compare.getState().loadRows()}>
          {strings.run.retry}
        </button>
      </div>
    )
  if (rows.length === 0) return <p className="muted pulse">{loading ? c.loadingTable : ''}</p>
  return (
    <div className="compare-results">
      <ComparisonTable rows={rows} />
      <div className="compare-extras">
        <CompareChart rows={rows} />
        <FinalDiff />
      </div>
    </div>
  )
}

type Key = keyof ComparisonRow

/** best: the index set of the lowest value of key among rows (nulls and, for cost, zeros are unknown). */
function best(rows: ComparisonRow[], key: Key, ignoreZero = false): Set<number> {
  const vals = rows.map((r) => r[key] as number | null)
  const known = vals.filter((v): v is number => v != null && !(ignoreZero && v === 0))
  if (known.length === 0) return new Set()
  const min = Math.min(...known)
  return new Set(vals.flatMap((v, i) => (v === min ? [i] : [])))
}

/** mostTestsPassed: the index set of the rows that passed the most tests (none when no row had tests, or none passed any). */
export function mostTestsPassed(rows: ComparisonRow[]): Set<number> {
  const passed = rows.map((r) => ((r.tests_total ?? 0) > 0 ? (r.tests_passed ?? 0) : -1))
  const top = Math.max(-1, ...passed)
  if (top <= 0) return new Set()
  return new Set(passed.flatMap((v, i) => (v === top ? [i] : [])))
}

export function ComparisonTable({ rows }: { rows: ComparisonRow[] }) {
  const c = strings.compare
  const u = c.unknown
  const cols: Array<{ key: Key; label: string; fmt(r: ComparisonRow): string; best?: Set<number>; num?: boolean }> = [
    { key: 'iterations', label: c.iterations, fmt: (r) => String(r.iterations), num: true },
    { key: 'iterations_to_success', label: c.toSuccess, fmt: (r) => (r.iterations_to_success == null ? u : String(r.iterations_to_success)), best: best(rows, 'iterations_to_success'), num: true },
    { key: 'wall_ms', label: c.wall, fmt: (r) => duration(r.wall_ms), best: best(rows, 'wall_ms'), num: true },
    { key: 'first_token_ms', label: c.firstToken, fmt: (r) => (r.first_token_ms == null ? u : duration(r.first_token_ms)), best: best(rows, 'first_token_ms'), num: true },
    { key: 'input_tokens', label: c.tokensIn, fmt: (r) => count(r.input_tokens), best: best(rows, 'input_tokens', true), num: true },
    { key: 'output_tokens', label: c.tokensOut, fmt: (r) => count(r.output_tokens), best: best(rows, 'output_tokens', true), num: true },
    { key: 'cost_usd', label: c.cost, fmt: (r) => (r.cost_usd > 0 ? `$${fixed(r.cost_usd, r.cost_usd < 0.01 ? 4 : 2)}` : u), best: best(rows, 'cost_usd', true), num: true },
    { key: 'lines_of_code', label: c.lines, fmt: (r) => String(r.lines_of_code), num: true },
    { key: 'final_exit_code', label: c.exitCode, fmt: (r) => (r.final_exit_code == null ? u : String(r.final_exit_code)), num: true },
  ]
  if (rows.some((r) => (r.tests_total ?? 0) > 0)) {
    // With tests, how many passed is what matters most: first, the most highlighted.
    cols.unshift({ key: 'tests_passed', label: strings.tests.column, fmt: (r) => ((r.tests_total ?? 0) > 0 ? `${r.tests_passed ?? 0}/${r.tests_total}` : u), best: mostTestsPassed(rows), num: true })
  }
  return (
    <div className="table-wrap card">
      <h3 className="card-title">{c.table}</h3>
      <table className="data-table" data-testid="comparison-table">
        <thead>
          <tr>
            <th scope="col">{c.provider}</th>
            <th scope="col">{c.status}</th>
            {cols.map((col) => (
              <th key={col.key} scope="col" className={col.num ? 'num' : undefined}>
                {col.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={r.run_id} data-testid="comparison-row" data-provider={r.provider} data-status={r.status}>
              <th scope="row">
                <span className="row-provider">{r.provider}</span>
                <span className="row-model muted">{r.model}</span>
              </th>
              <td>
                <StatusPill status={r.status} />
              </td>
              {cols.map((col) => {
                const isBest = rows.length > 1 && (col.best?.has(i) ?? false)
                return (
                  <td key={col.key} className={`${col.num ? 'num mono' : ''}${isBest ? ' best' : ''}`} data-col={col.key} title={isBest ? c.best : undefined}>
                    {col.fmt(r)}
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** CompareChart: wall time and iterations per provider as two sets of horizontal bars (plain SVG). */
export function CompareChart({ rows }: { rows: ComparisonRow[] }) {
  const c = strings.compare
  const maxMs = Math.max(1, ...rows.map((r) => r.wall_ms))
  const maxIt = Math.max(1, ...rows.map((r) => r.iterations))
  const rowH = 22
  const labelW = 110
  const barW = 170
  const gap = 24
  const height = rows.length * rowH + 28
  const width = labelW + 2 * (barW + gap) + 50
  return (
    <figure className="card chart" data-testid="compare-chart">
      <figcaption className="card-title">{c.chart}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" style={{ maxWidth: `${(width * 1.2) / 16}rem` }} role="img" aria-label={c.chart}>
        <text x={labelW} y={14} className="chart-head">
          {c.wall}
        </text>
        <text x={labelW + barW + gap + 40} y={14} className="chart-head">
          {c.iterations}
        </text>
        {rows.map((r, i) => {
          const y = 24 + i * rowH
          const w1 = Math.max(2, (r.wall_ms / maxMs) * barW)
          const w2 = Math.max(2, (r.iterations / maxIt) * barW)
          const x2 = labelW + barW + gap + 40
          const ok = r.status === 'success'
          return (
            <g key={r.run_id}>
              <text x={labelW - 8} y={y + 12} textAnchor="end" className="chart-label">
                {r.provider}
              </text>
              <rect x={labelW} y={y} width={w1} height={rowH - 8} rx={3} className={ok ? 'bar-ok' : 'bar-bad'} />
              <text x={labelW + w1 + 4} y={y + 12} className="chart-value">
                {duration(r.wall_ms)}
              </text>
              <rect x={x2} y={y} width={w2} height={rowH - 8} rx={3} className="bar-iter" />
              <text x={x2 + w2 + 4} y={y + 12} className="chart-value">
                {r.iterations}
              </text>
            </g>
          )
        })}
      </svg>
    </figure>
  )
}

function FinalDiff() {
  const c = strings.compare
  const columns = useCompare((x) => x.columns)
  const finals = useRuns(useShallow((r) => columns.map((col) => r.runs[col.runId]?.finalCode ?? '')))
  // A workspace run's final "code" is its git diff.
  const language = useRuns((r) => {
    const first = columns[0] ? r.runs[columns[0].runId] : undefined
    return first?.mode === 'workspace' ? 'diff' : first?.language
  })
  const [a, setA] = useState(0)
  const [b, setB] = useState(Math.min(1, columns.length - 1))
  const ia = Math.min(a, columns.length - 1)
  const ib = Math.min(b, columns.length - 1)
  const label = useMemo(() => `${c.diff}: ${columns[ia]?.provider} ↔ ${columns[ib]?.provider}`, [c.diff, columns, ia, ib])
  if (columns.length < 2) return null
  const pick = (value: number, onChange: (n: number) => void, name: string, testId: string) => (
    <label className="diff-pick">
      <span className="sr-only">{name}</span>
      <select value={value} onChange={(e) => onChange(Number(e.target.value))} data-testid={testId}>
        {columns.map((col, i) => (
          <option key={col.runId} value={i}>
            {col.provider}
          </option>
        ))}
      </select>
    </label>
  )
  return (
    <section className="card final-diff" aria-label={label}>
      <div className="card-head">
        <h3 className="card-title">{c.diff}</h3>
        <div className="diff-picks">
          {pick(ia, setA, c.left, 'diff-left')}
          <span aria-hidden="true">↔</span>
          {pick(ib, setB, c.right, 'diff-right')}
        </div>
      </div>
      <ScriptDiff left={finals[ia] || c.noScript} right={finals[ib] || c.noScript} language={language} label={label} />
    </section>
  )
}
