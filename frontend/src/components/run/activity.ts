import { useShallow } from 'zustand/shallow'
import { useCompare, useRuns } from '../../stores'
import { isFinished } from '../../stores/runModel'

/** What the run area shows and whether it is going: the comparison's runs, else the active run. */
export interface RunActivity {
  /** A comparison is shown (its columns are the runs). */
  comparing: boolean
  activeRunId: string | null
  /** The comparison's session id, else the active run's id: what Stop stops. */
  shownId: string | null
  /** The shown comparison or run has a run going. */
  running: boolean
  /** Stop was asked and what it stops has not ended yet. */
  cancelling: boolean
  /** A run or a comparison is being started. */
  starting: boolean
  /** The prompt of what runs ("" when not known yet). */
  prompt: string
  /** The providers of what runs: the comparison's columns, the active run's ([""] when not known yet), else none. */
  providers: string[]
}

/**
 * useRunActivity reads the two stores that say what the run area shows (compare and runs),
 * as one shallow-compared object: a token streaming into the run re-renders none of its users.
 */
export function useRunActivity(): RunActivity {
  const compare = useCompare(
    useShallow((x) => ({ id: x.sessionId, starting: x.starting, columns: x.columns, prompt: x.prompt })),
  )
  const runIds = compare.columns.map((col) => col.runId)
  const run = useRuns(
    useShallow((r) => {
      const comparing = compare.id != null
      const active = r.activeRunId ? r.runs[r.activeRunId] : undefined
      const going = (id: string) => r.runs[id] != null && !isFinished(r.runs[id])
      const compareRunning = runIds.some(going)
      const compareCancelling = runIds.length > 0 && runIds.every((id) => !going(id) || r.runs[id].cancelling)
      return {
        comparing,
        activeRunId: r.activeRunId,
        shownId: comparing ? compare.id : r.activeRunId,
        running: comparing ? compareRunning : active != null && !isFinished(active),
        cancelling: comparing ? compareRunning && compareCancelling : (active?.cancelling ?? false),
        starting: r.starting || compare.starting,
        prompt: (comparing ? compare.prompt : active?.prompt) ?? '',
        // A string, not a list: the shallow comparison keeps it equal while the run streams.
        activeProvider: active ? active.provider : null,
      }
    }),
  )
  const { activeProvider, ...rest } = run
  const providers = rest.comparing ? compare.columns.map((col) => col.provider) : activeProvider != null ? [activeProvider] : []
  return { ...rest, providers }
}
