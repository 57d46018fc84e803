import { strings } from '../../strings'

/** StatusPill names a run status with its colour. */
export function StatusPill({ status }: { status: string }) {
  return (
    <span className={`pill pill-${status}`} data-testid="run-status">
      {strings.status[status] ?? status}
    </span>
  )
}
