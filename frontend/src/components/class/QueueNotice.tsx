import { waitSpan } from '../../classroom'
import type { RunState } from '../../stores/runModel'
import { isFinished } from '../../stores/runModel'
import { strings } from '../../strings'

/** QueueNotice: class mode — the run waits for a sandbox, how many executions are ahead of it, and about how long. */
export function QueueNotice({ run }: { run: RunState }) {
  if (run.queueAhead == null || isFinished(run)) return null
  const t = strings.classroom.queue
  const wait = waitSpan(run.queueWaitMs)
  return (
    <p className="notice notice-queue" role="status" data-testid="queue-notice" data-ahead={run.queueAhead}>
      <span className="live-dot live-dot-on" aria-hidden="true" /> {t.waiting(run.queueAhead)}
      {wait && <span data-testid="queue-wait"> ({t.about(wait)})</span>}
    </p>
  )
}
