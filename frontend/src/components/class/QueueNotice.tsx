import type { RunState } from '../../stores/runModel'
import { isFinished } from '../../stores/runModel'
import { strings } from '../../strings'

/** QueueNotice: class mode — the run waits for a sandbox, and how many executions are ahead of it. */
export function QueueNotice({ run }: { run: RunState }) {
  if (run.queueAhead == null || isFinished(run)) return null
  return (
    <p className="notice notice-queue" role="status" data-testid="queue-notice" data-ahead={run.queueAhead}>
      <span className="live-dot live-dot-on" aria-hidden="true" /> {strings.classroom.queue.waiting(run.queueAhead)}
    </p>
  )
}
