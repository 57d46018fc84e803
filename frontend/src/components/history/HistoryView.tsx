import { useEffect, useState } from 'react'
import { errorWords, type ShownError } from '../../api'
import type { RunRequest, SessionDetail } from '../../api'
import { stamp } from '../../format'
import { useHistory, useStores, type Stores } from '../../stores'
import { strings } from '../../strings'
import { ExportMenu } from './ExportMenu'
import { RunView } from '../run/RunView'
import { StatusPill } from '../common/StatusPill'

/**
 * followUpRequest continues a session in its own mode: a workspace session
 * goes on in its project with its validation commands and auditor (as its
 * last run recorded them, else as the form has them); the form's inputs and
 * constraints and its network opt-in are not carried over.
 */
export function followUpRequest(stores: Stores, detail: SessionDetail, lastRunId: string | undefined, prompt: string): RunRequest {
  const runs = stores.runs.getState().runs
  const last = lastRunId ? runs[lastRunId] : undefined
  const provider = last?.provider || detail.runs?.find((r) => r.id === lastRunId)?.provider || null
  const workspace = last?.mode === 'workspace' || detail.mode === 'workspace'
  const req = stores.composer.getState().request(provider, detail.id, prompt, workspace ? 'workspace' : 'script')
  if (!workspace) return req
  delete req.task
  // What the last run recorded (run_started) when its events were seen; a bare stored copy does not know.
  const known = last != null && (!last.fromHistory || last.replayed === true)
  const workdir = (known && last.workdir) || detail.workdir
  if (workdir) req.workdir = workdir
  if (known) {
    if (last.validate.length) req.validate = last.validate
    else delete req.validate
    if (last.auditor) req.auditor = last.auditor
    else delete req.auditor
  }
  return req
}

/**
 * isWorkspaceSession: the session's runs worked in a project — a workspace
 * session, or a comparison in workspace mode.
 */
export function isWorkspaceSession(detail: SessionDetail): boolean {
  return detail.kind === 'workspace'
}

/** comparedProviders: the providers of a comparison session, in the order they first ran ([] for another session). */
export function comparedProviders(detail: SessionDetail): string[] {
  if (detail.mode !== 'compare') return []
  return [...new Set((detail.runs ?? []).map((r) => r.provider))]
}

/** HistoryView: search and open past sessions, replay a run, continue or delete. */
interface Callbacks {
  onContinued(runId: string): void
  /** Shows a comparison session in the comparison view. */
  onOpenComparison(detail: SessionDetail): void
  /** A follow-up started on several providers of a comparison (shown by the compare store). */
  onComparisonContinued(): void
}

export function HistoryView({ onContinued, onOpenComparison, onComparisonContinued }: Callbacks) {
  const stores = useStores()
  const h = strings.history
  const query = useHistory((x) => x.query)
  const sessions = useHistory((x) => x.sessions)
  const loading = useHistory((x) => x.loading)
  const loaded = useHistory((x) => x.loaded)
  const error = useHistory((x) => x.error)
  const selectedId = useHistory((x) => x.selectedId)
  const [typed, setTyped] = useState(query)

  useEffect(() => {
    void stores.history.getState().load()
  }, [stores])

  // Search as the user types, a moment after the last key.
  useEffect(() => {
    if (typed === stores.history.getState().query) return
    const t = setTimeout(() => {
      stores.history.getState().setQuery(typed)
      void stores.history.getState().load()
    }, 250)
    return () => clearTimeout(t)
  }, [typed, stores])

  return (
    <div className="history">
      <aside className="session-list card" aria-label={h.title}>
        <form
          role="search"
          onSubmit={(e) => {
            e.preventDefault()
            stores.history.getState().setQuery(typed)
            void stores.history.getState().load()
          }}
        >
          <label className="sr-only" htmlFor="history-search">
            {h.search}
          </label>
          <input
            id="history-search"
            type="search"
            value={typed}
            placeholder={h.searchPlaceholder}
            onChange={(e) => setTyped(e.target.value)}
            data-testid="history-search"
          />
        </form>
        {error && (
          <div className="notice notice-error" role="alert">
            <strong>{h.loadFailed}:</strong> {errorWords(error)}{' '}
            <button type="button" className="btn btn-small" onClick={() => void stores.history.getState().load()}>
              {strings.run.retry}
            </button>
          </div>
        )}
        {loading && !loaded && <p className="muted pulse">{h.loading}</p>}
        {loaded && sessions.length === 0 && !error && <p className="muted">{query ? h.noMatch(query) : h.empty}</p>}
        <ul className="sessions" data-testid="sessions">
          {sessions.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                className={`session${s.id === selectedId ? ' session-selected' : ''}`}
                onClick={() => void openSession(stores, s.id)}
                aria-current={s.id === selectedId}
                data-testid="session"
              >
                <span className="session-title">{s.title || s.prompt.slice(0, 80)}</span>
                <span className="session-meta">
                  <span>{stamp(s.updated_at)}</span>
                  {(s.runs ?? []).slice(-3).map((r) => (
                    <span key={r.id} className={`mini mini-${r.status}`}>
                      {r.provider} · {strings.status[r.status] ?? r.status}
                    </span>
                  ))}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <SessionPanel onContinued={onContinued} onOpenComparison={onOpenComparison} onComparisonContinued={onComparisonContinued} />
    </div>
  )
}

async function openSession(stores: ReturnType<typeof useStores>, id: string): Promise<void> {
  const d = await stores.history.getState().open(id)
  const last = d?.runs?.[d.runs.length - 1]
  if (d && last) stores.runs.getState().loadStored(d, last.id)
}

function SessionPanel(callbacks: Callbacks) {
  const stores = useStores()
  const h = strings.history
  const detail = useHistory((x) => x.detail)
  const selectedId = useHistory((x) => x.selectedId)
  const detailLoading = useHistory((x) => x.detailLoading)
  const detailError = useHistory((x) => x.detailError)

  if (!selectedId) return <section className="session-detail empty muted">{h.select}</section>
  if (detailError)
    return (
      <section className="session-detail">
        <div className="notice notice-error" role="alert">
          <strong>{h.openFailed}:</strong> {errorWords(detailError)}{' '}
          <button type="button" className="btn btn-small" onClick={() => void openSession(stores, selectedId)}>
            {strings.run.retry}
          </button>
        </div>
      </section>
    )
  if (detailLoading || !detail || detail.id !== selectedId) return <section className="session-detail muted pulse">{h.loading}</section>
  return <SessionDetailView key={detail.id} detail={detail} {...callbacks} />
}

function SessionDetailView({ detail, onContinued, onOpenComparison, onComparisonContinued }: { detail: SessionDetail } & Callbacks) {
  const stores = useStores()
  const h = strings.history
  const runs = detail.runs ?? []
  const [runId, setRunId] = useState(runs.length ? runs[runs.length - 1].id : null)
  const [confirming, setConfirming] = useState(false)
  const [followUp, setFollowUp] = useState('')
  const [continuing, setContinuing] = useState(false)
  const [continueError, setContinueError] = useState<ShownError | null>(null)
  const deleteError = useHistory((x) => x.deleteError)

  const pickRun = (id: string) => {
    stores.runs.getState().loadStored(detail, id)
    setRunId(id)
  }

  // A comparison goes on with the providers ticked here (all of them unless the user unticks some).
  const compared = comparedProviders(detail)
  const [continueWith, setContinueWith] = useState(compared)
  const chosen = compared.filter((p) => continueWith.includes(p))

  const doContinue = async () => {
    if (!followUp.trim() || (compared.length > 0 && chosen.length === 0)) return
    const last = runs[runs.length - 1]
    setContinuing(true)
    setContinueError(null)
    const req = followUpRequest(stores, detail, last?.id, followUp)
    if (chosen.length > 1) {
      // Each provider goes on with its own thread in this comparison (the server picks it).
      const { provider: _, ...rest } = req
      void _
      const sid = await stores.compare.getState().start({ ...rest, providers: chosen })
      setContinuing(false)
      if (sid) {
        setFollowUp('')
        void stores.history.getState().load()
        onComparisonContinued()
      } else {
        setContinueError(stores.compare.getState().startError)
      }
      return
    }
    if (chosen.length === 1) req.provider = chosen[0]
    const id = await stores.runs.getState().start(req)
    setContinuing(false)
    if (id) {
      setFollowUp('')
      void stores.history.getState().load()
      onContinued(id)
    } else {
      setContinueError(stores.runs.getState().startError)
      stores.runs.getState().clearStartError()
    }
  }

  return (
    <section className="session-detail" data-testid="session-detail">
      <div className="session-head">
        <div>
          <h2 className="session-heading">{detail.title || h.title}</h2>
          <p className="muted small">
            {stamp(detail.created_at)} · {h.runs(runs.length)}
            {detail.workdir && <> · {detail.workdir}</>}
          </p>
        </div>
        <div className="session-actions">
          {detail.mode === 'compare' && runs.length > 0 && (
            <button type="button" className="btn btn-primary btn-small" onClick={() => onOpenComparison(detail)} data-testid="open-comparison">
              {strings.compare.open}
            </button>
          )}
          {runs.length > 0 && <ExportMenu sessionId={detail.id} workspace={isWorkspaceSession(detail)} hasCode={runs.some((r) => !!r.final_code)} />}
          {!confirming ? (
            <button type="button" className="btn btn-ghost btn-danger-text" onClick={() => setConfirming(true)} data-testid="delete">
              {h.delete}
            </button>
          ) : (
            <div className="confirm" role="alertdialog" aria-label={h.confirmDelete}>
              <span>{h.confirmDelete}</span>
              <button
                type="button"
                className="btn btn-danger btn-small"
                onClick={() => void stores.history.getState().remove(detail.id)}
                data-testid="confirm-delete"
              >
                {h.confirm}
              </button>
              <button type="button" className="btn btn-small" onClick={() => setConfirming(false)} autoFocus>
                {h.keep}
              </button>
            </div>
          )}
        </div>
      </div>
      {deleteError && (
        <p className="notice notice-error" role="alert">
          <strong>{h.deleteFailed}:</strong> {errorWords(deleteError)}
        </p>
      )}
      <details className="session-prompt">
        <summary>{h.prompt}</summary>
        <pre>{detail.prompt}</pre>
      </details>
      {runs.length > 1 && (
        <div className="tabs run-tabs" role="tablist">
          {runs.map((r, i) => (
            <button key={r.id} type="button" role="tab" className="tab" aria-selected={r.id === runId} onClick={() => pickRun(r.id)}>
              #{i + 1} {r.provider} <StatusPill status={r.status} />
            </button>
          ))}
        </div>
      )}
      {runs.length === 0 && <p className="muted">{h.noRuns}</p>}
      {runId && (
        <RunView
          runId={runId}
          replay
          stage
          keys
          retry
          onRetried={(id) => {
            void stores.history.getState().load()
            onContinued(id)
          }}
        />
      )}
      <form
        className="follow-up card"
        onSubmit={(e) => {
          e.preventDefault()
          void doContinue()
        }}
      >
        <label htmlFor="follow-up" className="field-label">
          {h.followUp}
        </label>
        <textarea
          id="follow-up"
          rows={2}
          value={followUp}
          placeholder={h.followUpPlaceholder}
          onChange={(e) => setFollowUp(e.target.value)}
          data-testid="follow-up"
        />
        {compared.length > 1 && (
          <fieldset className="continue-with" data-testid="continue-with">
            <legend className="field-label">{h.continueWith}</legend>
            {compared.map((p) => (
              <label key={p} className="check" data-testid={`continue-with-${p}`}>
                <input
                  type="checkbox"
                  checked={continueWith.includes(p)}
                  onChange={(e) => setContinueWith((cur) => (e.target.checked ? [...cur.filter((x) => x !== p), p] : cur.filter((x) => x !== p)))}
                />
                {p}
              </label>
            ))}
            <span className="muted small" data-testid="continue-with-note">
              {chosen.length === 0 ? h.continueNone : h.continueEach(chosen.length)}
            </span>
          </fieldset>
        )}
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={continuing || !followUp.trim() || (compared.length > 0 && chosen.length === 0)} data-testid="continue">
            {continuing ? strings.run.starting : chosen.length > 1 ? h.continueCompare(chosen.length) : h.continue}
          </button>
        </div>
        {continueError && (
          <p className="notice notice-error" role="alert">
            <strong>{strings.run.startFailed}:</strong> {errorWords(continueError)}
          </p>
        )}
      </form>
    </section>
  )
}
