import { errorWords } from '../../api'
import { useComposer, useCompare, useRuns, useWorkdir } from '../../stores'
import { launchInputs } from '../../stores/launch'
import { strings } from '../../strings'
import { useRunActivity } from './activity'
import type { Hint } from './formTypes'

interface Props {
  /** The providers Run starts: several make a comparison. */
  chosen: string[]
  /** Run may be clicked (the providers are known, the class is not paused) when nothing runs. */
  ready: boolean
  hint: Hint | null
  slowStop: boolean
  onStop: () => void
  onCollapse?: () => void
}

/** RunActions: Run and Stop, why Run was refused or failed, and the button that folds the form. */
export function RunActions({ chosen, ready, hint, slowStop, onStop, onCollapse }: Props) {
  const s = strings.run
  const { running, cancelling, starting } = useRunActivity()
  const startError = useRuns((r) => r.startError)
  const compareError = useCompare((x) => x.startError)
  return (
    <>
      <div className="actions">
        <button type="submit" className="btn btn-primary btn-big" disabled={starting || running || !ready} title="Ctrl+Enter" data-testid="run">
          {starting ? s.starting : chosen.length > 1 ? s.compare(chosen.length) : s.start}
        </button>
        <button type="button" className="btn btn-danger btn-big" disabled={!running || cancelling} onClick={onStop} title="Esc" data-testid="stop">
          {cancelling ? s.stopping : s.stop}
        </button>
      </div>
      {hint && <HintNotice hint={hint} chosen={chosen} />}
      {startError && (
        <p className="notice notice-error" role="alert" data-testid="start-error">
          <strong>{s.startFailed}:</strong> {errorWords(startError)}
        </p>
      )}
      {compareError && (
        <p className="notice notice-error" role="alert" data-testid="compare-error">
          <strong>{strings.compare.startFailed}:</strong> {errorWords(compareError)}
        </p>
      )}
      {slowStop && <p className="notice notice-warn">{strings.live.stillStopping}</p>}
      {onCollapse && (
        <button type="button" className="btn btn-ghost btn-small form-collapse" aria-expanded={true} title={strings.stage.collapseTitle} onClick={onCollapse} data-testid="form-collapse">
          {strings.stage.collapse} <span aria-hidden="true">▴</span>
        </button>
      )}
      <p className="muted small keys-hint">{strings.stage.keys}</p>
    </>
  )
}

/** HintNotice: why Run was refused, while the prompt, providers, mode and folder it was about stay as they were. */
function HintNotice({ hint, chosen }: { hint: Hint; chosen: string[] }) {
  const prompt = useComposer((c) => c.prompt)
  const mode = useComposer((c) => c.mode)
  const workdir = useWorkdir((w) => w.path)
  if (launchInputs(prompt, chosen, mode, workdir) !== hint.inputs) return null
  return <p className="notice notice-warn">{hint.text}</p>
}
