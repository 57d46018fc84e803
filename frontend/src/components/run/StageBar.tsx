import { strings } from '../../strings'
import { promptSummary } from '../../stage'

/**
 * StageBar: the run form folded to one line while a run has the screen —
 * the prompt, the providers, Stop, and the button that opens the form again.
 */
export function StageBar({
  prompt,
  providers,
  running,
  cancelling,
  onStop,
  onExpand,
}: {
  prompt: string
  providers: string[]
  running: boolean
  cancelling: boolean
  onStop: () => void
  onExpand: () => void
}) {
  const s = strings.run
  return (
    <div className="stage-bar" data-sticky="" role="region" aria-label={strings.stage.bar} data-testid="stage-bar">
      <span className={`live-dot${running ? ' live-dot-on' : ''}`} aria-hidden="true" />
      <p className="stage-prompt" title={prompt} data-testid="stage-prompt">
        {promptSummary(prompt)}
      </p>
      <ul className="stage-providers" aria-label={s.providers} data-testid="stage-providers">
        {providers.map((p) => (
          <li key={p} className="stage-provider">
            {p}
          </li>
        ))}
      </ul>
      <button type="button" className="btn btn-danger" disabled={!running || cancelling} onClick={onStop} title="Esc" data-testid="stop">
        {cancelling ? s.stopping : s.stop}
      </button>
      <button
        type="button"
        className="btn btn-ghost"
        aria-expanded={false}
        title={strings.stage.expandTitle}
        onClick={onExpand}
        data-testid="form-expand"
      >
        {strings.stage.expand} <span aria-hidden="true">▾</span>
      </button>
    </div>
  )
}
