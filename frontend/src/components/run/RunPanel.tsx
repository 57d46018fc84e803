import { useEffect, useRef, useState, type ReactNode } from 'react'
import { useShallow } from 'zustand/shallow'
import { errorWords } from '../../api'
import { useCompare, useComposer, useProviders, useRuns, useStores, useWorkdir } from '../../stores'
import { defaultProvider } from '../../stores/providers'
import { isFinished } from '../../stores/runModel'
import { formCollapsed, shortcut, type FormEvent } from '../../stage'
import { utf8Length } from '../../format'
import { strings } from '../../strings'
import { CompareView } from '../compare/CompareView'
import { ProviderPicker } from './ProviderPicker'
import { RunSettings } from './RunSettings'
import { RunView } from './RunView'
import { SandboxInfo } from './SandboxInfo'
import { StageBar } from './StageBar'
import { TestsField } from './TestsField'
import { ModeSwitch, NetworkOptIn, WorkspaceFields } from '../workspace/WorkspaceForm'

/** A student's form (class mode): only what the instructor allows. */
export interface StudentForm {
  /** Workspace mode is allowed (in a scratch folder the server gives the student). */
  workspace: boolean
  /** The class is paused: Run is off. */
  paused: boolean
  /** Shown above the form: the assignment, the pause, the student's use. */
  banner?: ReactNode
  /** The assignment's tests judge the run (on the server): no Tests panel of the student's own. */
  assignedTests?: boolean
}

/**
 * RunPanel: the prompt, the provider, the loop settings, Run and Stop — and
 * the active run below. Once a run starts the form folds to one line (the
 * stage bar: prompt, providers, Stop) so the run takes the screen; the bar
 * opens it again. Ctrl+Enter runs, Esc stops.
 */
export function RunPanel({ student }: { student?: StudentForm } = {}) {
  const s = strings.run
  const stores = useStores()
  const c = useComposer(
    useShallow((x) => ({
      prompt: x.prompt,
      presetId: x.presetId,
      providers: x.providers,
      mode: x.mode,
    })),
  )
  const workdir = useWorkdir((w) => w.path)
  const workspace = c.mode === 'workspace'
  const setC = useComposer((x) => x.set)
  const presets = useProviders((p) => p.presets)
  const providers = useProviders((p) => p.providers)
  const providersLoaded = useProviders((p) => p.loaded)
  const configured = useProviders((p) => p.defaults?.provider)
  // The API's prompt limit (absent from an older server: no check here).
  const promptMax = useProviders((p) => p.defaults?.max_prompt_bytes ?? 0)
  const promptBytes = promptMax ? utf8Length(c.prompt) : 0
  const promptOver = promptMax > 0 && promptBytes > promptMax
  const compareId = useCompare((x) => x.sessionId)
  const compareStarting = useCompare((x) => x.starting)
  const compareError = useCompare((x) => x.startError)
  const compareColumns = useCompare((x) => x.columns)
  const comparePromptText = useCompare((x) => x.prompt)
  const compareRunning = useRuns((r) => compareColumns.some((col) => r.runs[col.runId] && !isFinished(r.runs[col.runId])))
  const compareCancelling = useRuns((r) => compareColumns.length > 0 && compareColumns.every((col) => !r.runs[col.runId] || isFinished(r.runs[col.runId]) || r.runs[col.runId].cancelling))
  const activeRunId = useRuns((r) => r.activeRunId)
  const active = useRuns((r) => (r.activeRunId ? r.runs[r.activeRunId] : undefined))
  const starting = useRuns((r) => r.starting)
  const startError = useRuns((r) => r.startError)

  // The ticked providers that are ready, else the configured default.
  const ticked = c.providers.filter((n) => providers.some((p) => p.name === n && p.available))
  const fallback = defaultProvider(providers, configured)
  const chosen = ticked.length ? ticked : fallback ? [fallback] : []
  const comparing = compareId != null
  const running = comparing ? compareRunning : active != null && !isFinished(active)
  const cancelling = comparing ? compareRunning && compareCancelling : (active?.cancelling ?? false)
  const [hint, setHint] = useState<string | null>(null)
  const [slowStop, setSlowStop] = useState(false)
  // A run already going when the panel opens (e.g. continued from History) starts folded.
  const [collapsed, setCollapsed] = useState(running)
  const fold = (ev: FormEvent) => setCollapsed((x) => formCollapsed(x, ev))
  const hasRun = comparing || activeRunId != null
  const folded = collapsed && hasRun && !hint

  // A hint about a missing prompt or provider goes once that is fixed.
  const chosenKey = chosen.join(',')
  useEffect(() => setHint(null), [c.prompt, chosenKey, c.mode, workdir])

  useEffect(() => {
    if (!cancelling) {
      setSlowStop(false)
      return
    }
    const t = setTimeout(() => setSlowStop(true), 5000)
    return () => clearTimeout(t)
  }, [cancelling])

  const start = async () => {
    if (!c.prompt.trim()) return setHint(s.needPrompt)
    // Refused here, with the count, rather than after sending it all.
    if (promptOver) return setHint(s.promptTooLong(promptBytes, [...c.prompt].length, promptMax))
    if (!chosen.length) return setHint(s.needProvider)
    if (workspace && !workdir && !student) return setHint(s.needWorkdir)
    setHint(null)
    const composer = stores.composer.getState()
    // The folder shown is the one the run edits (a re-run of a comparison column too).
    const where = workspace && !student ? { workdir } : {}
    let id: string | null
    if (chosen.length > 1) {
      id = await stores.compare.getState().start({ ...composer.compareRequest(chosen), ...where })
    } else {
      stores.compare.getState().close()
      const req = composer.request(chosen[0])
      // A student may not choose the model (the class's server refuses it).
      if (student) delete req.model
      // The server puts the assignment's tests on the run; the student's own would be refused.
      if (student?.assignedTests) delete req.tests
      id = await stores.runs.getState().start({ ...req, ...where })
    }
    if (!id) return fold('startFailed')
    // The network opt-in was for this run only.
    stores.composer.getState().startedRun()
    // The run takes the screen: the form folds to one line above it.
    fold('started')
    requestAnimationFrame(() => window.scrollTo?.({ top: 0, behavior: 'smooth' }))
  }

  const stop = () => {
    if (comparing) void stores.compare.getState().cancelAll()
    else if (activeRunId) void stores.runs.getState().cancel(activeRunId)
  }

  // Ctrl+Enter runs (from the prompt box too), Esc stops — not while typing, nor in a dialog.
  const keys = useRef<(e: KeyboardEvent) => void>(() => {})
  keys.current = (e) => {
    const k = shortcut(e)
    if (k === 'run') {
      e.preventDefault()
      if (!running && !starting && !compareStarting && providersLoaded && !student?.paused) void start()
    } else if (k === 'stop' && running && !cancelling) {
      stop()
    }
  }
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => keys.current(e)
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])

  const pickPreset = (id: string) => {
    const p = presets.find((x) => x.id === id)
    // A preset brings its tests (none: the Tests panel is emptied, so a
    // preset never runs with another exercise's tests).
    setC(p ? { presetId: id, prompt: p.prompt, tests: p.tests ?? '' } : { presetId: '' })
  }

  const stageProviders = comparing ? compareColumns.map((col) => col.provider) : active ? [active.provider || chosen[0]] : chosen
  const stagePrompt = (comparing ? comparePromptText : active?.prompt) || c.prompt

  return (
    <div className={`run-page${folded ? ' run-page-stage' : ''}`}>
      {student?.banner}
      {folded ? (
        <StageBar
          prompt={stagePrompt}
          providers={stageProviders}
          running={running}
          cancelling={cancelling}
          onStop={stop}
          onExpand={() => fold('expand')}
        />
      ) : (
        <form
          id="run-form"
          className="composer card"
          onSubmit={(e) => {
            e.preventDefault()
            void start()
          }}
          aria-label={s.prompt}
        >
          <div className="composer-main">
            {(!student || student.workspace) && <ModeSwitch />}
            <div className="prompt-head">
              <label htmlFor="prompt" className="field-label">
                {s.prompt}
              </label>
              <label className="preset">
                <span className="sr-only">{s.preset}</span>
                <select value={c.presetId} onChange={(e) => pickPreset(e.target.value)} data-testid="preset">
                  <option value="">{s.presetNone}</option>
                  {presets.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.title}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <textarea
              id="prompt"
              className="prompt"
              value={c.prompt}
              placeholder={s.promptPlaceholder}
              onChange={(e) => setC({ prompt: e.target.value, presetId: '' })}
              data-testid="prompt"
            />
            {promptMax > 0 && promptBytes >= promptMax * 0.75 && (
              <p className={promptOver ? 'notice notice-error small' : 'muted small'} data-testid="prompt-size" role={promptOver ? 'alert' : undefined}>
                {promptOver ? s.promptTooLong(promptBytes, [...c.prompt].length, promptMax) : s.promptSize(promptBytes, [...c.prompt].length, promptMax)}
              </p>
            )}
            {workspace && <WorkspaceFields folder={!student} />}
            {!workspace && !student?.assignedTests && <TestsField />}
            <SandboxInfo />
          </div>
          <div className="composer-side">
            <ProviderPicker
              value={chosen}
              models={!student}
              onToggle={(name, on) => {
                // The first tick next to the implicit default keeps the default ticked too.
                const base = ticked.length ? ticked : chosen
                setC({ providers: on ? [...base.filter((x) => x !== name), name] : base.filter((x) => x !== name) })
              }}
            />
            <RunSettings />
            {!student && <NetworkOptIn />}
            <div className="actions">
              <button
                type="submit"
                className="btn btn-primary btn-big"
                disabled={starting || compareStarting || running || !providersLoaded || student?.paused}
                title="Ctrl+Enter"
                data-testid="run"
              >
                {starting || compareStarting ? s.starting : chosen.length > 1 ? s.compare(chosen.length) : s.start}
              </button>
              <button
                type="button"
                className="btn btn-danger btn-big"
                disabled={!running || cancelling}
                onClick={stop}
                title="Esc"
                data-testid="stop"
              >
                {cancelling ? s.stopping : s.stop}
              </button>
            </div>
            {hint && <p className="notice notice-warn">{hint}</p>}
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
            {hasRun && (
              <button
                type="button"
                className="btn btn-ghost btn-small form-collapse"
                aria-expanded={true}
                    title={strings.stage.collapseTitle}
                onClick={() => fold('collapse')}
                data-testid="form-collapse"
              >
                {strings.stage.collapse} <span aria-hidden="true">▴</span>
              </button>
            )}
            <p className="muted small keys-hint">{strings.stage.keys}</p>
          </div>
        </form>
      )}
      {folded && slowStop && <p className="notice notice-warn">{strings.live.stillStopping}</p>}
      <div className="run-area">
        {comparing ? <CompareView /> : activeRunId ? <RunView runId={activeRunId} stage keys retry /> : <p className="empty-run muted">{s.empty}</p>}
      </div>
    </div>
  )
}
