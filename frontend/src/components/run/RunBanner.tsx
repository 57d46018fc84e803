import type { ReactNode } from 'react'
import type { RunState } from '../../stores/runModel'
import { isFinished } from '../../stores/runModel'
import { errorText, isProviderError, strings } from '../../strings'

const icons: Record<string, string> = {
  success: '✓',
  limit_reached: '⟳',
  error: '✕',
  cancelled: '■',
  interrupted: '!',
}

/**
 * RunBanner announces how a finished run ended, with its error if any, in
 * the UI's language (by its code). "The provider said:" introduces only the
 * provider's own failures, never loopforge's refusals (a missing key, the
 * sandbox, a setting, a tampered repository).
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
          <p className="banner-detail" data-testid="run-error" data-code={run.errorCode || undefined}>
            {run.status === 'error' && prefix(run) && <span className="muted">{prefix(run)} </span>}
            {errorText(run.errorCode, run.errorParams, run.error)}
          </p>
        )}
      </div>
      {actions && <div className="banner-actions">{actions}</div>}
    </div>
  )
}

/** prefix says whose the error is, when that needs saying. */
function prefix(run: RunState): string {
  if (run.errorKind === 'workspace_guard') return strings.banner.guardStopped
  if (run.errorKind === 'quota') return strings.classroom.quotaStopped
  return isProviderError(run.errorCode) ? strings.banner.providerSaid : ''
}
