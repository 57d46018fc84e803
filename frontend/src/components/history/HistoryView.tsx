import { useEffect, useState } from 'react'
import { errorWords, type SessionDetail } from '../../api'
import { stamp } from '../../format'
import { useHistory, useStores } from '../../stores'
import { strings } from '../../strings'
import { ExportMenu } from './ExportMenu'
import { RunView } from '../run/RunView'
import { FollowUpForm } from './FollowUpForm'
import { StatusPill } from '../common/StatusPill'

/**
 * isWorkspaceSession: the session's runs worked in a project — a workspace
 * session, or a comparison in workspace mode.
 */
export function isWorkspaceSession(detail: SessionDetail): boolean {
  return detail.kind === 'workspace'
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

  const pickRun = (id: string) => {
    stores.runs.getState().loadStored(detail, id)
    setRunId(id)
  }

  return (
    <section className="session-detail" data-testid="session-detail">
      <SessionHead detail={detail} onOpenComparison={onOpenComparison} />
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
      <FollowUpForm detail={detail} onContinued={onContinued} onComparisonContinued={onComparisonContinued} />
    </section>
  )
}

/** SessionHead: the session's title, when and where, and what can be done with it: open the comparison, export, delete. */
function SessionHead({ detail, onOpenComparison }: { detail: SessionDetail; onOpenComparison: Callbacks['onOpenComparison'] }) {
  const stores = useStores()
  const h = strings.history
  const runs = detail.runs ?? []
  const [confirming, setConfirming] = useState(false)
  const deleteError = useHistory((x) => x.deleteError)
  return (
    <>
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
    </>
  )
}
