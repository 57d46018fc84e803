import { useEffect, useEffectEvent, useState } from 'react'
import { useComposer, useProviders, useStores } from '../../stores'
import { chosenProviders, launch, stopShown } from '../../stores/launch'
import { formCollapsed, shortcut, type FormEvent } from '../../stage'
import { strings } from '../../strings'
import { CompareView } from '../compare/CompareView'
import { useRunActivity, type RunActivity } from './activity'
import { RunForm } from './RunForm'
import type { Hint, StudentForm } from './formTypes'
import { RunView } from './RunView'
import { StageBar } from './StageBar'

/** After this long stopping, the form says the run is still stopping. */
const SLOW_STOP_MS = 5000

/**
 * RunPanel: the prompt, the provider, the loop settings, Run and Stop — and
 * the active run below. Once a run starts the form folds to one line (the
 * stage bar: prompt, providers, Stop) so the run takes the screen; the bar
 * opens it again. Ctrl+Enter runs, Esc stops.
 */
export function RunPanel({ student }: { student?: StudentForm } = {}) {
  const stores = useStores()
  const run = useRunActivity()
  const { comparing, activeRunId, running, cancelling } = run
  const [hint, setHint] = useState<Hint | null>(null)
  // A run already going when the panel opens (e.g. continued from History) starts folded.
  const [collapsed, setCollapsed] = useState(running)
  const fold = (ev: FormEvent) => setCollapsed((x) => formCollapsed(x, ev))
  const hasRun = comparing || activeRunId != null
  const folded = collapsed && hasRun
  const slowStop = useSlowStop(cancelling ? run.shownId : null)

  const start = async () => {
    const r = await launch(stores, { student })
    // A refusal opens the form to show why; the hint goes once what it is about changes.
    if ('hint' in r) {
      setHint({ text: r.hint, inputs: r.inputs })
      return fold('startFailed')
    }
    setHint(null)
    if ('failed' in r) return fold('startFailed')
    // The run takes the screen: the form folds to one line above it.
    fold('started')
    requestAnimationFrame(() => window.scrollTo?.({ top: 0, behavior: 'smooth' }))
  }
  const stop = () => stopShown(stores)

  // Ctrl+Enter runs (from the prompt box too), Esc stops — not while typing, nor in a dialog.
  const onKey = useEffectEvent((e: KeyboardEvent) => {
    const k = shortcut(e)
    if (k === 'run') {
      e.preventDefault()
      if (!running && !run.starting && stores.providers.getState().loaded && !student?.paused) void start()
    } else if (k === 'stop' && running && !cancelling) {
      stop()
    }
  })
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKey(e)
    window.addEventListener('keydown', listener)
    return () => window.removeEventListener('keydown', listener)
  }, [])

  return (
    <div className={`run-page${folded ? ' run-page-stage' : ''}`}>
      {student?.banner}
      {folded ? (
        <FoldedForm run={run} onStop={stop} onExpand={() => fold('expand')} />
      ) : (
        <RunForm student={student} hint={hint} slowStop={slowStop} onStart={() => void start()} onStop={stop} onCollapse={hasRun ? () => fold('collapse') : undefined} />
      )}
      {folded && slowStop && <p className="notice notice-warn">{strings.live.stillStopping}</p>}
      <div className="run-area">
        {comparing ? <CompareView /> : activeRunId ? <RunView runId={activeRunId} stage keys retry /> : <p className="empty-run muted">{strings.run.empty}</p>}
      </div>
    </div>
  )
}

/**
 * useSlowStop: true once stopping (the id of what is being stopped, null when nothing is) has
 * taken SLOW_STOP_MS. Keyed by that id, so the next stop starts from false again.
 */
function useSlowStop(stopping: string | null): boolean {
  const [slowFor, setSlowFor] = useState<string | null>(null)
  useEffect(() => {
    if (!stopping) return
    const t = setTimeout(() => setSlowFor(stopping), SLOW_STOP_MS)
    return () => clearTimeout(t)
  }, [stopping])
  return stopping != null && slowFor === stopping
}

/** FoldedForm: the stage bar, with the form's prompt and providers until the run's own are known. */
function FoldedForm({ run, onStop, onExpand }: { run: RunActivity; onStop: () => void; onExpand: () => void }) {
  const prompt = useComposer((c) => c.prompt)
  const ticks = useComposer((c) => c.providers)
  const list = useProviders((p) => p.providers)
  const configured = useProviders((p) => p.defaults?.provider)
  const { chosen } = chosenProviders(ticks, list, configured)
  const providers = run.comparing ? run.providers : run.providers.length ? [run.providers[0] || chosen[0]] : chosen
  return <StageBar prompt={run.prompt || prompt} providers={providers} running={run.running} cancelling={run.cancelling} onStop={onStop} onExpand={onExpand} />
}
