import { useState } from 'react'
import { errorWords, type RunRequest, type SessionDetail, type ShownError } from '../../api'
import { useStores, type Stores } from '../../stores'
import { strings } from '../../strings'

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

/** comparedProviders: the providers of a comparison session, in the order they first ran ([] for another session). */
export function comparedProviders(detail: SessionDetail): string[] {
  if (detail.mode !== 'compare') return []
  return [...new Set((detail.runs ?? []).map((r) => r.provider))]
}

/**
 * FollowUpForm: a follow-up prompt that continues the session — a comparison
 * on the providers ticked here (each on its own thread), else one run.
 */
export function FollowUpForm({ detail, onContinued, onComparisonContinued }: { detail: SessionDetail; onContinued(runId: string): void; onComparisonContinued(): void }) {
  const stores = useStores()
  const h = strings.history
  const runs = detail.runs ?? []
  const [followUp, setFollowUp] = useState('')
  const [continuing, setContinuing] = useState(false)
  const [continueError, setContinueError] = useState<ShownError | null>(null)

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
  )
}
