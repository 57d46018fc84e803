import { useComposer, useProviders } from '../../stores'
import { chosenProviders } from '../../stores/launch'
import { utf8Length } from '../../format'
import { strings } from '../../strings'
import { ModeSwitch, NetworkOptIn, WorkspaceFields } from '../workspace/WorkspaceForm'
import { ProviderPicker } from './ProviderPicker'
import { RunActions } from './RunActions'
import type { Hint, StudentForm } from './formTypes'
import { RunSettings } from './RunSettings'
import { SandboxInfo } from './SandboxInfo'
import { TestsField } from './TestsField'

interface Props {
  student?: StudentForm
  hint: Hint | null
  /** Stopping has taken a while. */
  slowStop: boolean
  onStart: () => void
  onStop: () => void
  /** Folds the form to the stage bar (there is a run to give the screen to). */
  onCollapse?: () => void
}

/** RunForm: the run form unfolded — prompt, mode and its fields, providers, loop settings, Run and Stop. */
export function RunForm({ student, hint, slowStop, onStart, onStop, onCollapse }: Props) {
  const mode = useComposer((c) => c.mode)
  const ticks = useComposer((c) => c.providers)
  const setC = useComposer((c) => c.set)
  const list = useProviders((p) => p.providers)
  const configured = useProviders((p) => p.defaults?.provider)
  const loaded = useProviders((p) => p.loaded)
  const { ticked, chosen } = chosenProviders(ticks, list, configured)
  const workspace = mode === 'workspace'
  return (
    <form
      id="run-form"
      className="composer card"
      onSubmit={(e) => {
        e.preventDefault()
        onStart()
      }}
      aria-label={strings.run.prompt}
    >
      <div className="composer-main">
        {(!student || student.workspace) && <ModeSwitch />}
        <PromptField />
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
        <RunActions chosen={chosen} ready={loaded && !student?.paused} hint={hint} slowStop={slowStop} onStop={onStop} onCollapse={onCollapse} />
      </div>
    </form>
  )
}

/** PromptField: the prompt, the preset that fills it, and its size near the API's limit. */
function PromptField() {
  const s = strings.run
  const prompt = useComposer((c) => c.prompt)
  const presetId = useComposer((c) => c.presetId)
  const setC = useComposer((c) => c.set)
  const presets = useProviders((p) => p.presets)
  // The API's prompt limit (absent from an older server: no check here).
  const max = useProviders((p) => p.defaults?.max_prompt_bytes ?? 0)
  const bytes = max ? utf8Length(prompt) : 0
  const over = max > 0 && bytes > max
  const pickPreset = (id: string) => {
    const p = presets.find((x) => x.id === id)
    // A preset brings its tests (none: the Tests panel is emptied, so a
    // preset never runs with another exercise's tests).
    setC(p ? { presetId: id, prompt: p.prompt, tests: p.tests ?? '' } : { presetId: '' })
  }
  return (
    <>
      <div className="prompt-head">
        <label htmlFor="prompt" className="field-label">
          {s.prompt}
        </label>
        <label className="preset">
          <span className="sr-only">{s.preset}</span>
          <select value={presetId} onChange={(e) => pickPreset(e.target.value)} data-testid="preset">
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
        value={prompt}
        placeholder={s.promptPlaceholder}
        onChange={(e) => setC({ prompt: e.target.value, presetId: '' })}
        data-testid="prompt"
      />
      {max > 0 && bytes >= max * 0.75 && (
        <p className={over ? 'notice notice-error small' : 'muted small'} data-testid="prompt-size" role={over ? 'alert' : undefined}>
          {over ? s.promptTooLong(bytes, [...prompt].length, max) : s.promptSize(bytes, [...prompt].length, max)}
        </p>
      )}
    </>
  )
}
