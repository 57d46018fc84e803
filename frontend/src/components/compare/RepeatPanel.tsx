import { useState } from 'react'
import { errorWords, shownError, type RepeatGroup, type RepeatStatus, type RunRequest } from '../../api'
import { fixed } from '../../format'
import { useProviders, useRepeat, useStores } from '../../stores'
import { bestGroup, bestOf, maxRepeat, measures, type Reflection } from '../../stores/repeat'
import { strings } from '../../strings'

/**
 * RepeatPanel: "repeat to measure" a comparison (issue 25 item 6). The form
 * chooses the providers, N and reflection (on, off, or both as an A/B); the
 * server runs the rounds as comparisons in the history, and the panel shows
 * the progress live, then the results per provider × reflection with pass^N,
 * pass@1, iterations to green, time and cost with their spread.
 */
export function RepeatPanel({ request, providers, onClose }: { request: RunRequest; providers: string[]; onClose(): void }) {
  const status = useRepeat((x) => x.status)
  return (
    <section className="card repeat-panel" data-testid="repeat-panel" aria-label={strings.repeat.title}>
      <div className="card-head">
        <h3 className="card-title">{strings.repeat.title}</h3>
        {(!status || status.state !== 'running') && (
          <button type="button" className="btn btn-ghost btn-small" onClick={onClose} data-testid="repeat-close">
            {strings.repeat.close}
          </button>
        )}
      </div>
      <p className="muted small">{strings.repeat.intro}</p>
      {status ? <Progress status={status} /> : <RepeatForm request={request} initial={providers} />}
      {status && status.groups.length > 0 && <RepeatTable groups={status.groups} n={status.repeat} />}
    </section>
  )
}

function RepeatForm({ request, initial }: { request: RunRequest; initial: string[] }) {
  const stores = useStores()
  const r = strings.repeat
  const ready = useProviders((x) => x.providers).filter((p) => p.available)
  const [chosen, setChosen] = useState<string[]>(() => initial.filter((n) => ready.some((p) => p.name === n)))
  const [n, setN] = useState(5)
  const [reflection, setReflection] = useState<Reflection>('ab')
  const starting = useRepeat((x) => x.starting)
  const error = useRepeat((x) => x.startError)
  const toggle = (name: string) => setChosen((c) => (c.includes(name) ? c.filter((x) => x !== name) : [...c, name]))
  // In the providers' own order, whatever the order of the clicks.
  const picked = ready.map((p) => p.name).filter((name) => chosen.includes(name))
  return (
    <form
      className="repeat-form"
      data-testid="repeat-form"
      onSubmit={(e) => {
        e.preventDefault()
        void stores.repeat.getState().start(request, picked, n, reflection)
      }}
    >
      <fieldset className="repeat-providers">
        <legend>{r.providers}</legend>
        {ready.map((p) => (
          <label key={p.name} className="check" data-testid={`repeat-provider-${p.name}`}>
            <input type="checkbox" checked={chosen.includes(p.name)} onChange={() => toggle(p.name)} /> {p.name}
          </label>
        ))}
      </fieldset>
      <label className="repeat-n">
        {r.times}{' '}
        <input
          type="number"
          min={1}
          max={maxRepeat}
          value={n}
          onChange={(e) => setN(Number(e.target.value))}
          data-testid="repeat-n"
          aria-describedby="repeat-n-hint"
        />{' '}
        <span id="repeat-n-hint" className="muted small">
          {r.timesHint(maxRepeat)}
        </span>
      </label>
      <fieldset className="repeat-reflection">
        <legend>{r.reflection}</legend>
        {(['on', 'off', 'ab'] as const).map((v) => (
          <label key={v} className="check">
            <input type="radio" name="repeat-reflection" value={v} checked={reflection === v} onChange={() => setReflection(v)} data-testid={`repeat-reflect-${v}`} /> {r[v]}
          </label>
        ))}
      </fieldset>
      {picked.length < 2 && <p className="muted small">{r.needTwo}</p>}
      {error && (
        <p className="notice notice-error" role="alert">
          <strong>{r.startFailed}:</strong> {errorWords(error)}
        </p>
      )}
      <button type="submit" className="btn btn-primary btn-small" disabled={starting || picked.length < 2} data-testid="repeat-start">
        {starting ? r.starting : r.start}
      </button>
    </form>
  )
}

function Progress({ status }: { status: RepeatStatus }) {
  const stores = useStores()
  const r = strings.repeat
  const cancelling = useRepeat((x) => x.cancelling)
  const followError = useRepeat((x) => x.followError)
  const running = status.state === 'running'
  return (
    <div className="repeat-progress" data-testid="repeat-progress" data-state={status.state} data-done={status.runs_done} data-total={status.runs_total}>
      <p className="repeat-line">
        <strong data-testid="repeat-state">{r.states[status.state] ?? status.state}</strong>
        {running && (
          <>
            {' · '}
            <span data-testid="repeat-run-of">{r.progress(status.runs_done, status.runs_total)}</span>
          </>
        )}
        {!running && (
          <>
            {' · '}
            <span className="muted">{r.finishedRuns(status.runs_done, status.runs_total)}</span>
          </>
        )}
        {running && status.round > 0 && (
          <>
            {' · '}
            <span className="muted" data-testid="repeat-round">
              {r.round(status.round, status.rounds, status.reflect ? r.on : r.off)}
            </span>
          </>
        )}
      </p>
      <progress max={Math.max(1, status.runs_total)} value={status.runs_done} aria-label={r.finishedRuns(status.runs_done, status.runs_total)} />
      {running && (
        <button type="button" className="btn btn-danger btn-small" disabled={cancelling} onClick={() => void stores.repeat.getState().cancel()} data-testid="repeat-cancel">
          {cancelling ? r.cancelling : r.cancel}
        </button>
      )}
      {status.error && (
        <p className="notice notice-error" role="alert" data-testid="repeat-error">
          {errorWords(shownError(status.error))}
        </p>
      )}
      {followError && (
        <p className="notice notice-error" role="alert">
          <strong>{r.followFailed}:</strong> {errorWords(followError)}{' '}
          <button type="button" className="btn btn-small" onClick={() => stores.repeat.getState().followAgain()}>
            {r.followAgain}
          </button>
        </p>
      )}
      {!running && status.sessions.length > 0 && <p className="muted small">{r.inHistory(status.sessions.length)}</p>}
    </div>
  )
}

/** spread words a mean ± its standard deviation, "—" when no repeat had a value. */
function spread(s: { mean: number; sd: number; n: number }, fmt: (v: number) => string): string {
  return s.n > 0 ? `${fmt(s.mean)} ± ${fmt(s.sd)}` : strings.compare.unknown
}

const money = (v: number) => `$${fixed(v, v < 0.01 ? 4 : 2)}`

/** wallSpread: a mean time ± its deviation in one unit, seconds from a second up. */
function wallSpread(s: { mean: number; sd: number; n: number }): string {
  if (s.n === 0) return strings.compare.unknown
  return s.mean >= 1000 ? `${fixed(s.mean / 1000, 1)} ± ${fixed(s.sd / 1000, 1)} s` : `${fixed(s.mean, 0)} ± ${fixed(s.sd, 0)} ms`
}
const percent = (v: number) => `${fixed(v * 100, 0)}%`

export function RepeatTable({ groups, n }: { groups: RepeatGroup[]; n: number }) {
  const r = strings.repeat
  const tests = groups.some((g) => g.tests_passed.n > 0)
  const top = bestGroup(groups)
  const cols: Array<{ key: string; label: string; title?: string; fmt(g: RepeatGroup): string; best?: Set<number> }> = [
    { key: 'pass_all', label: r.passAll(n), title: r.passAllTitle, fmt: (g) => (g.pass_all ? r.yes : r.no), best: new Set(groups.flatMap((g, i) => (g.pass_all ? [i] : []))) },
    { key: 'pass_at_1', label: r.passAt1, title: r.passAt1Title, fmt: (g) => `${g.successes}/${g.runs} (${percent(g.pass_at_1)})`, best: bestOf(groups, measures.passAt1, true) },
    { key: 'iterations_to_green', label: r.green, title: r.greenTitle, fmt: (g) => spread(g.iterations_to_green, (v) => fixed(v, 1)), best: bestOf(groups, measures.green, false) },
    { key: 'wall_ms', label: r.wall, fmt: (g) => wallSpread(g.wall_ms), best: bestOf(groups, measures.wall, false) },
    { key: 'cost_usd', label: r.cost, fmt: (g) => spread(g.cost_usd, money), best: bestOf(groups, measures.cost, false) },
  ]
  if (tests) cols.push({ key: 'tests_passed', label: r.tests, fmt: (g) => spread(g.tests_passed, percent), best: bestOf(groups, measures.tests, true) })
  return (
    <div className="table-wrap">
      <h4 className="card-title">{r.table(n)}</h4>
      <table className="data-table" data-testid="repeat-table">
        <thead>
          <tr>
            <th scope="col">{r.provider}</th>
            <th scope="col">{r.reflect}</th>
            {cols.map((c) => (
              <th key={c.key} scope="col" className="num" title={c.title}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {groups.map((g, i) => (
            <tr key={`${g.provider}-${g.reflect}`} data-testid="repeat-row" data-provider={g.provider} data-reflect={g.reflect ? 'on' : 'off'} data-best={i === top ? 'true' : undefined}>
              <th scope="row">
                <span className="row-provider">
                  {g.provider}
                  {i === top && (
                    <span className="tag repeat-best" title={r.bestRow} data-testid="repeat-best">
                      {r.best}
                    </span>
                  )}
                </span>
                <span className="row-model muted">{g.model}</span>
              </th>
              <td>{g.reflect ? r.on : r.off}</td>
              {cols.map((c) => {
                const isBest = groups.length > 1 && (c.best?.has(i) ?? false)
                return (
                  <td key={c.key} className={`num mono${isBest ? ' best' : ''}`} data-col={c.key} title={isBest ? r.best : undefined}>
                    {c.fmt(g)}
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
