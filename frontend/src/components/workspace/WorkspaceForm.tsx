import { useState } from 'react'
import { useShallow } from 'zustand/shallow'
import { errorWords } from '../../api'
import type { RunMode } from '../../api'
import { useComposer, useProviders, useStores, useWorkdir } from '../../stores'
import { strings } from '../../strings'

const modes: RunMode[] = ['script', 'workspace']

/** ModeSwitch: script (one script in the sandbox) or workspace (the model edits a git repository). */
export function ModeSwitch() {
  const s = strings.run
  const mode = useComposer((x) => x.mode)
  const set = useComposer((x) => x.set)
  return (
    <div className="mode-row">
      <div className="mode-switch" role="radiogroup" aria-label={s.mode} data-testid="mode">
        {modes.map((m) => (
          <label key={m} className={`mode-opt${mode === m ? ' mode-on' : ''}`}>
            <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => set({ mode: m })} data-testid={`mode-${m}`} />
            <span>{s.modes[m]}</span>
          </label>
        ))}
      </div>
      <p className="muted small mode-hint">{s.modeHints[mode]}</p>
    </div>
  )
}

/**
 * ProjectFolder shows the workdir — the repository a workspace run edits —
 * and changes it like the header's control does. It sits inside the run
 * form, so it uses no form of its own (Enter sets the typed path).
 */
function ProjectFolder() {
  const stores = useStores()
  const s = strings.run
  const w = strings.workdir
  const path = useWorkdir((x) => x.path)
  const saving = useWorkdir((x) => x.saving)
  const error = useWorkdir((x) => x.error)
  const canChoose = useWorkdir((x) => x.canChoose)
  const canBrowse = useWorkdir((x) => x.canBrowse)
  const [editing, setEditing] = useState(false)
  const [typed, setTyped] = useState('')

  const submit = async () => {
    if (!typed.trim()) return
    if (await stores.workdir.getState().set(typed)) setEditing(false)
  }

  return (
    <div className="project">
      <span className="field-label" id="ws-project-label">
        {s.project}
      </span>
      {!editing ? (
        <div className="project-row">
          <code className={`project-path${path ? '' : ' muted'}`} title={path} data-testid="ws-project-path">
            {path || s.projectNone}
          </code>
          {canChoose ? (
            <button type="button" className="btn btn-small" onClick={() => void stores.workdir.getState().choose()} disabled={saving}>
              {saving ? w.saving : w.choose}
            </button>
          ) : (
            <>
              <button
                type="button"
                className="btn btn-small"
                onClick={() => {
                  setTyped(path)
                  stores.workdir.getState().clearError()
                  setEditing(true)
                }}
                data-testid="ws-project-change"
              >
                {w.change}
              </button>
              {canBrowse && (
                <button type="button" className="btn btn-small" onClick={() => void stores.workdir.getState().openPicker()} aria-haspopup="dialog" data-testid="ws-project-browse">
                  {w.browse}
                </button>
              )}
            </>
          )}
        </div>
      ) : (
        <div className="project-row">
          <input
            type="text"
            className="project-input"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault() // not the run form's submit
                void submit()
              } else if (e.key === 'Escape') {
                setEditing(false)
              }
            }}
            placeholder={w.placeholder}
            aria-labelledby="ws-project-label"
            aria-describedby="ws-project-hint"
            title={w.webHint}
            autoFocus
            spellCheck={false}
            data-testid="ws-project-input"
          />
          <button type="button" className="btn btn-small btn-primary" onClick={() => void submit()} disabled={saving || !typed.trim()}>
            {saving ? w.saving : w.set}
          </button>
          <button type="button" className="btn btn-small" onClick={() => setEditing(false)}>
            {w.cancel}
          </button>
        </div>
      )}
      {editing && error && (
        <p className="project-error" data-testid="ws-project-error">
          {errorWords(error)}
        </p>
      )}
      <p className="field-hint" id="ws-project-hint">
        {s.projectHint}
      </p>
    </div>
  )
}

/**
 * WorkspaceFields: the project folder, validation commands, auditor, inputs
 * and constraints of a workspace run. A student picks no folder (the server
 * gives each one a scratch folder of their own).
 */
export function WorkspaceFields({ folder = true }: { folder?: boolean }) {
  const s = strings.run
  const f = useComposer(useShallow((x) => ({ validate: x.validate, auditor: x.auditor, inputs: x.inputs, constraints: x.constraints })))
  const set = useComposer((x) => x.set)
  const providers = useProviders((p) => p.providers)
  const ready = providers.filter((p) => p.available)
  const auditorKnown = f.auditor === '' || ready.some((p) => p.name === f.auditor)
  return (
    <fieldset className="workspace-fields" data-testid="workspace-fields">
      <legend className="sr-only">{s.workspace}</legend>
      {folder && <ProjectFolder />}
      <div className="ws-grid">
        <LinesField id="ws-validate" label={s.validate} hint={s.validateHint} rows={3} mono value={f.validate}
          placeholder={s.validatePlaceholder} onChange={(v) => set({ validate: v })} />
        <div className="ws-field">
          <label className="field-label" htmlFor="ws-auditor">
            {s.auditor}
          </label>
          <select id="ws-auditor" value={f.auditor} onChange={(e) => set({ auditor: e.target.value })} aria-describedby="ws-auditor-hint" data-testid="ws-auditor">
            <option value="">{s.auditorNone}</option>
            {ready.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name} · {p.model}
              </option>
            ))}
            {!auditorKnown && <option value={f.auditor}>{s.auditorNotReady(f.auditor)}</option>}
          </select>
          <span className="field-hint" id="ws-auditor-hint">
            {s.auditorHint}
          </span>
        </div>
        <LinesField id="ws-inputs" label={s.inputs} hint={s.inputsHint} rows={2} mono value={f.inputs}
          placeholder={s.inputsPlaceholder} onChange={(v) => set({ inputs: v })} />
        <LinesField id="ws-constraints" label={s.constraints} hint={s.constraintsHint} rows={2} value={f.constraints}
          placeholder={s.constraintsPlaceholder} onChange={(v) => set({ constraints: v })} />
      </div>
    </fieldset>
  )
}

interface LinesFieldProps {
  id: string
  label: string
  hint: string
  rows: number
  mono?: boolean
  value: string
  placeholder: string
  onChange: (value: string) => void
}

/** LinesField: a labelled textarea of one item per line (commands, paths, constraints) with its hint. */
function LinesField({ id, label, hint, rows, mono, value, placeholder, onChange }: LinesFieldProps) {
  return (
    <div className="ws-field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <textarea
        id={id}
        rows={rows}
        className={mono ? 'mono' : undefined}
        value={value}
        placeholder={placeholder}
        spellCheck={mono ? false : undefined}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={`${id}-hint`}
        data-testid={id}
      />
      <span className="field-hint" id={`${id}-hint`}>
        {hint}
      </span>
    </div>
  )
}

/** NetworkOptIn: lets the next run's code reach the network; off by default and again after each start. */
export function NetworkOptIn() {
  const s = strings.run
  const on = useComposer((x) => x.allowNetwork)
  const set = useComposer((x) => x.set)
  return (
    <div className={`net-optin${on ? ' net-on' : ''}`}>
      <input
        id="allow-network"
        type="checkbox"
        checked={on}
        onChange={(e) => set({ allowNetwork: e.target.checked })}
        aria-describedby="allow-network-hint"
        data-testid="allow-network"
      />
      <span className="net-text">
        <label className="net-label" htmlFor="allow-network">
          {s.allowNetwork}
        </label>
        <span className="net-hint" id="allow-network-hint">
          {s.allowNetworkHint}
        </span>
      </span>
    </div>
  )
}
