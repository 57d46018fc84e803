import type { ReactNode } from 'react'
import type { RunState } from '../stores/runModel'
import { isFinished } from '../stores/runModel'
import { strings } from '../strings'

const icons: Record<string, string> = {
  success: '✓',
  limit_reached: '⟳',
  error: '✕',
  cancelled: '■',
  interrupted: '!',
}

/**
 * RunBanner announces how a finished run ended, with its error if any: the
 * provider's, or loopforge's own refusal to touch a tampered repository.
 */
export function RunBanner({ run, actions }: { run: RunState; actions?: ReactNode }) {
  if (!isFinished(run)) return null
  const b = strings.banner
  const n = run.iterations.length
  let title: string
  switch (run.status) {
    case 'success':
      title = b.success(n)
      break
    case 'limit_reached':
      title = b.limit_reached(n)
      break
    case 'error':
      title = b.error
      break
    case 'cancelled':
      title = b.cancelled
      break
    case 'interrupted':
      title = b.interrupted
      break
    default:
      title = b.unknown(run.status)
  }
  return (
    <div className={`banner banner-${run.status}`} role="status" data-testid="run-banner" data-status={run.status}>
      <span className="banner-icon" aria-hidden="true">
        {icons[run.status] ?? '•'}
      </span>
      <div className="banner-text">
        <strong>{title}</strong>
        {run.error && (
          <p className="banner-detail" data-testid="run-error">
            {run.status === 'error' && (
              <span className="muted">{run.errorKind === 'workspace_guard' ? b.guardStopped : b.providerSaid} </span>
            )}
            {run.error}
          </p>
        )}
      </div>
      {actions && <div className="banner-actions">{actions}</div>}
    </div>
  )
}
