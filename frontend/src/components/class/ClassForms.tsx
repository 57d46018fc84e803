import { useState } from 'react'
import type { Assignment, ClassLimits, ClassView } from '../../api/gen/wire'
import { count } from '../../format'
import { useClassroom, useProviders, useStores } from '../../stores'
import { strings } from '../../strings'
import { countTests } from '../../strings/tests'

/** NumberField: a labelled whole (or decimal) number, 0 / empty = none. */
function NumberField(props: { label: string; value: number; onChange(n: number): void; step?: number; testId: string; min?: number }) {
  return (
    <label className="class-field">
      <span>{props.label}</span>
      <input
        type="number"
        min={props.min ?? 0}
        step={props.step ?? 1}
        value={props.value || ''}
        placeholder="0"
        onChange={(e) => props.onChange(Math.max(0, Number(e.target.value) || 0))}
        data-testid={props.testId}
      />
    </label>
  )
}

/** Checks: one checkbox per name (providers, presets), none ticked meaning "all". */
function Checks(props: { legend: string; hint?: string; options: Array<{ value: string; label: string }>; value: string[]; onChange(v: string[]): void; testId: string }) {
  return (
    <fieldset className="class-checks" data-testid={props.testId}>
      <legend>{props.legend}</legend>
      {props.hint && props.value.length === 0 && <span className="muted small">{props.hint}</span>}
      {props.options.map((o) => (
        <label key={o.value}>
          <input
            type="checkbox"
            checked={props.value.includes(o.value)}
            onChange={(e) => props.onChange(e.target.checked ? [...props.value, o.value] : props.value.filter((x) => x !== o.value))}
            data-value={o.value}
          />
          <span>{o.label}</span>
        </label>
      ))}
    </fieldset>
  )
}

/** LimitsForm: what each student may use (the server clamps and refuses by it). */
export function LimitsForm({ cls }: { cls: ClassView }) {
  const stores = useStores()
  const t = strings.classroom.limitsForm
  const providers = useProviders((p) => p.providers)
  const presets = useProviders((p) => p.presets)
  const busy = useClassroom((c) => c.busy === 'limits')
  const [l, setL] = useState<ClassLimits>(() => ({ ...cls.limits, providers: cls.limits.providers ?? [], presets: cls.limits.presets ?? [] }))
  const [saved, setSaved] = useState(false)
  const set = (patch: Partial<ClassLimits>) => {
    setSaved(false)
    setL((x) => ({ ...x, ...patch }))
  }
  return (
    <form
      className="class-panel card"
      aria-label={t.title}
      data-testid="limits-form"
      onSubmit={async (e) => {
        e.preventDefault()
        setSaved(await stores.classroom.getState().setLimits(l))
      }}
    >
      <h3 className="class-panel-title">{t.title}</h3>
      <p className="muted small">{t.hint}</p>
      <div className="class-grid">
        <NumberField label={t.maxIterations} value={l.max_iterations} onChange={(n) => set({ max_iterations: n })} testId="limit-max-iterations" />
        <NumberField label={t.concurrentRuns} value={l.concurrent_runs} onChange={(n) => set({ concurrent_runs: n })} testId="limit-concurrent-runs" />
        <NumberField label={t.runsPerHour} value={l.runs_per_hour} onChange={(n) => set({ runs_per_hour: n })} testId="limit-runs-per-hour" />
        <NumberField label={t.tokensPerStudent} value={l.tokens_per_student} onChange={(n) => set({ tokens_per_student: n })} step={1000} testId="limit-tokens-student" />
        <NumberField label={t.tokensForClass} value={l.tokens_for_class} onChange={(n) => set({ tokens_for_class: n })} step={1000} testId="limit-tokens-class" />
        <NumberField label={t.costPerStudent} value={l.cost_per_student_usd} onChange={(n) => set({ cost_per_student_usd: n })} step={0.01} testId="limit-cost" />
        <NumberField label={t.concurrentExecutions} value={l.concurrent_executions} onChange={(n) => set({ concurrent_executions: n })} testId="limit-executions" />
        <NumberField label={t.tokensPerIteration} value={l.tokens_per_iteration} onChange={(n) => set({ tokens_per_iteration: n })} step={500} testId="limit-tokens-iteration" />
        <NumberField label={t.maxStudentTests} value={l.max_student_tests ?? 0} onChange={(n) => set({ max_student_tests: n })} testId="limit-student-tests" />
        <label className="class-field">
          <span>{t.budgetWindow}</span>
          <select value={l.budget_window || 'class'} onChange={(e) => set({ budget_window: e.target.value })} data-testid="limit-budget-window">
            {Object.entries(t.windows).map(([w, label]) => (
              <option key={w} value={w}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="class-field">
          <span>{t.budgetProfile}</span>
          <select value={l.budget_profile ?? ''} onChange={(e) => set({ budget_profile: e.target.value })} data-testid="limit-budget-profile">
            <option value="">{t.budgetProfileNone}</option>
            {providers.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name} · {p.model}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="class-grid">
        <Checks
          legend={t.providers}
          options={providers.map((p) => ({ value: p.name, label: `${p.name} · ${p.model}` }))}
          value={l.providers}
          onChange={(v) => set({ providers: v })}
          testId="limit-providers"
        />
        <Checks legend={t.presets} options={presets.map((p) => ({ value: p.id, label: p.title }))} value={l.presets} onChange={(v) => set({ presets: v })} testId="limit-presets" />
      </div>
      {/* Scratch workspaces for students are not built on the server yet (README): no switch for them until they are. */}
      <div className="class-panel-actions">
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="limits-save">
          {busy ? t.saving : t.save}
        </button>
        {saved && <span className="muted" role="status">{t.saved}</span>}
        <span className="muted small">{t.usage(cls.usage.runs, count(cls.usage.tokens))}</span>
      </div>
    </form>
  )
}

/** AssignmentForm: a prompt (or a built-in one) and its settings, pushed to every student's form. */
export function AssignmentForm({ cls }: { cls: ClassView }) {
  const stores = useStores()
  const t = strings.classroom.assign
  const r = strings.run
  const providers = useProviders((p) => p.providers)
  const presets = useProviders((p) => p.presets)
  const busy = useClassroom((c) => c.busy === 'assign')
  const [a, setA] = useState<Assignment>(() => cls.assignment ?? { prompt: '' })
  const [hint, setHint] = useState<string | null>(null)
  const set = (patch: Partial<Assignment>) => setA((x) => ({ ...x, ...patch }))
  const allowed = cls.limits.providers?.length ? providers.filter((p) => cls.limits.providers.includes(p.name)) : providers.filter((p) => p.available)
  const push = async (x: Assignment) => {
    await stores.classroom.getState().assign(x)
  }
  return (
    <form
      className="class-panel card"
      aria-label={t.title}
      data-testid="assignment-form"
      onSubmit={(e) => {
        e.preventDefault()
        if (!a.prompt.trim()) return setHint(t.needPrompt)
        if (a.prompt_only && !a.tests?.trim()) return setHint(t.needTests)
        setHint(null)
        void push(a)
      }}
    >
      <h3 className="class-panel-title">{t.title}</h3>
      <p className="muted small">{t.hint}</p>
      <div className="assign-main">
        <label className="class-field">
          <span>{t.name}</span>
          <input value={a.title ?? ''} placeholder={t.namePlaceholder} onChange={(e) => set({ title: e.target.value })} data-testid="assign-title" />
        </label>
        <label className="class-field">
          <span>{t.preset}</span>
          <select
            value={a.preset ?? ''}
            onChange={(e) => {
              const p = presets.find((x) => x.id === e.target.value)
              set(p ? { preset: p.id, prompt: p.prompt, title: a.title || p.title, tests: p.tests || a.tests } : { preset: '' })
            }}
            data-testid="assign-preset"
          >
            <option value="">{r.presetNone}</option>
            {presets.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label className="class-field">
        <span>{t.prompt}</span>
        <textarea rows={4} value={a.prompt} onChange={(e) => set({ prompt: e.target.value, preset: '' })} data-testid="assign-prompt" />
      </label>
      <AssignmentTests a={a} set={set} />
      <div className="class-grid">
        <Checks
          legend={t.providers}
          hint={t.providersAll}
          options={allowed.map((p) => ({ value: p.name, label: p.name }))}
          value={a.providers ?? []}
          onChange={(v) => set({ providers: v })}
          testId="assign-providers"
        />
        <NumberField label={t.iterations} value={a.max_iterations ?? 0} onChange={(n) => set({ max_iterations: n })} testId="assign-iterations" />
        <NumberField label={t.timeout} value={a.timeout_seconds ?? 0} onChange={(n) => set({ timeout_seconds: n })} testId="assign-timeout" />
        <label className="class-field">
          <span>{t.language}</span>
          <select value={a.language ?? ''} onChange={(e) => set({ language: e.target.value })} data-testid="assign-language">
            <option value="">{t.default}</option>
            <option value="python">{r.languages.python}</option>
            <option value="sh">{r.languages.sh}</option>
            <option value="node">{r.languages.node}</option>
          </select>
        </label>
        <label className="class-field">
          <span>{t.reflect}</span>
          <select
            value={a.reflect == null ? '' : a.reflect ? 'on' : 'off'}
            onChange={(e) => set({ reflect: e.target.value === '' ? undefined : e.target.value === 'on' })}
            data-testid="assign-reflect"
          >
            <option value="">{t.default}</option>
            <option value="on">{r.reflectOn}</option>
            <option value="off">{r.reflectOff}</option>
          </select>
        </label>
      </div>
      <div className="class-panel-actions">
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="assign-push">
          {busy ? t.pushing : t.push}
        </button>
        {cls.assignment && (
          <button type="button" className="btn" disabled={busy} onClick={() => void push({ prompt: '' })} data-testid="assign-clear">
            {t.clear}
          </button>
        )}
        {hint && <span className="notice notice-warn">{hint}</span>}
      </div>
    </form>
  )
}

/** AssignmentTests: the assignment's tests (YAML, each visible or hidden) and the prompt-problem switch. */
function AssignmentTests({ a, set }: { a: Assignment; set(patch: Partial<Assignment>): void }) {
  const t = strings.classroom.assign
  const { n, hidden } = countTests(a.tests ?? '')
  return (
    <div className="assign-tests">
      <label className="class-field">
        <span>
          {t.tests}
          {n > 0 && (
            <span className="muted small" data-testid="assign-tests-count">
              {' '}
              · {t.testsCount(n, hidden)}
            </span>
          )}
        </span>
        <textarea
          className="mono tests-yaml"
          rows={6}
          value={a.tests ?? ''}
          placeholder={strings.tests.panel.placeholder}
          spellCheck={false}
          onChange={(e) => set({ tests: e.target.value })}
          data-testid="assign-tests"
        />
      </label>
      <p className="muted small">{t.testsHint}</p>
      <label className="check">
        <input type="checkbox" checked={a.prompt_only ?? false} onChange={(e) => set({ prompt_only: e.target.checked })} data-testid="assign-prompt-only" />
        <span>{t.promptOnly}</span>
      </label>
      {a.prompt_only && <p className="muted small">{t.promptOnlyHint}</p>}
    </div>
  )
}
