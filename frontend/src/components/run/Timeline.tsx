import type { IterationView, RunState } from '../../stores/runModel'
import { isFinished } from '../../stores/runModel'
import { currentLang, errorText, execOutcome, strings } from '../../strings'

export type ChipPhase = IterationView['phase'] | 'reflecting' | 'auditing' | 'stopped'

/**
 * chipPhase: a failed iteration whose reflection is streaming shows as
 * reflecting, one whose change the auditor is reviewing as auditing; one
 * left unfinished by a finished run shows as stopped.
 */
export function chipPhase(run: RunState, it: IterationView): ChipPhase {
  const finished = isFinished(run)
  if (!finished && it.reflecting) return 'reflecting'
  if (!finished && it.auditing) return 'auditing'
  if (finished && it.phase !== 'success' && it.phase !== 'error') return 'stopped'
  return it.phase
}

/**
 * chipTitle says how an iteration ended, in the UI's language: its
 * execution's outcome, its unusable answer, else the loop's summary when
 * that is in the UI's language (it is English), else its phase.
 */
function chipTitle(it: IterationView, phase: ChipPhase): string {
  if (it.exec) return execOutcome(it.exec)
  if (it.formatCode || it.formatError) return errorText(it.formatCode, it.formatParams, it.formatError ?? '')
  if (it.summary && currentLang() === 'en') return it.summary
  return strings.live.phase[phase]
}

const marks: Record<ChipPhase, string> = {
  generating: '…',
  executing: '▶',
  validating: '▶',
  auditing: '?',
  reflecting: '?',
  success: '✓',
  error: '✕',
  stopped: '■',
}

interface Props {
  run: RunState
  selected: number | null
  following: boolean
  onSelect(n: number): void
  onPrev(): void
  onNext(): void
  onFollow(): void
  replay: boolean
  /** Show "Follow live" here (a stage shows its own, always in sight). */
  inlineFollow?: boolean
}

/** Timeline: one chip per iteration with its status, and step controls. */
export function Timeline({ run, selected, following, onSelect, onPrev, onNext, onFollow, replay, inlineFollow = true }: Props) {
  const s = strings.live
  const idx = run.iterations.findIndex((i) => i.n === selected)
  const live = !isFinished(run)
  return (
    <div className="timeline">
      <ol className="chips" aria-label={s.iteration} data-testid="timeline">
        {run.iterations.map((it) => {
          const phase = chipPhase(run, it)
          // Workspace mode: how many validation commands passed.
          const passed = it.validations.filter((v) => v.passed).length
          const total = it.validations.length
          const checks = total > 0 ? s.checks(passed, total) : ''
          return (
            <li key={it.n}>
              <button
                type="button"
                className={`chip chip-${phase}${it.n === selected ? ' chip-selected' : ''}`}
                aria-pressed={it.n === selected}
                aria-label={`${s.iteration} ${it.n}: ${s.phase[phase]}${checks ? `, ${checks}` : ''}`}
                title={chipTitle(it, phase)}
                onClick={() => onSelect(it.n)}
                data-testid="iteration-chip"
                data-phase={phase}
              >
                <span className="chip-n">{it.n}</span>
                <span className="chip-mark" aria-hidden="true">
                  {marks[phase]}
                </span>
                <span className="chip-label">{s.phase[phase]}</span>
                {total > 0 && (
                  <span className={`chip-checks ${passed === total ? 'checks-ok' : 'checks-bad'}`} data-testid="chip-checks" data-passed={passed} data-total={total}>
                    {passed}/{total}
                  </span>
                )}
              </button>
            </li>
          )
        })}
      </ol>
      <div className="step-controls">
        {replay && idx >= 0 && (
          <span className="muted step-label" data-testid="replay-step">
            {s.step(idx + 1, run.iterations.length)}
          </span>
        )}
        <button type="button" className="btn btn-ghost" onClick={onPrev} disabled={idx <= 0} aria-label={s.prev} title={`${s.prev} (←)`} data-testid="step-prev">
          <span aria-hidden="true">←</span> <span className="step-text">{s.prev}</span>
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          onClick={onNext}
          disabled={idx < 0 || idx >= run.iterations.length - 1}
          aria-label={s.next}
          title={`${s.next} (→)`}
          data-testid="step-next"
        >
          <span className="step-text">{s.next}</span> <span aria-hidden="true">→</span>
        </button>
        {inlineFollow && live && !following && (
          <button type="button" className="btn btn-primary btn-follow" onClick={onFollow} title={strings.stage.followTitle} data-testid="follow-live">
            <span className="live-dot" aria-hidden="true" /> {s.follow}
          </button>
        )}
      </div>
    </div>
  )
}
