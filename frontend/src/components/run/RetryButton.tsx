import { useState } from 'react'
import { errorWords, type ShownError } from '../../api'
import { useStores } from '../../stores'
import type { RunState } from '../../stores/runModel'
import { strings } from '../../strings'

/**
 * RetryButton starts a run that goes on from where run stopped (the
 * backend's RunRequest.retry: same session, thread, prompt and settings)
 * and makes it the run shown.
 */
export function RetryButton({ run, onRetried }: { run: RunState; onRetried?: (runId: string) => void }) {
  const stores = useStores()
  const b = strings.banner
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ShownError | null>(null)
  const retry = async () => {
    setBusy(true)
    setError(null)
    const runs = stores.runs.getState()
    const id = await runs.start({ prompt: run.prompt, retry: run.runId })
    setBusy(false)
    if (id) {
      onRetried?.(id)
      return
    }
    setError(stores.runs.getState().startError)
    stores.runs.getState().clearStartError()
  }
  return (
    <span className="retry-action">
      <button type="button" className="btn btn-small" data-testid="retry-iteration" title={b.retryTitle} disabled={busy} onClick={() => void retry()}>
        {busy ? b.retrying : b.retry}
      </button>
      {error && (
        <span className="notice-error small" role="alert" data-testid="retry-error">
          {b.retryFailed} {errorWords(error)}
        </span>
      )}
    </span>
  )
}
