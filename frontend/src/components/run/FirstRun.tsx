import { useEffect } from 'react'
import { errorWords } from '../../api'
import { useProviders, useSetup, useStores } from '../../stores'
import { missing, type Missing } from '../../stores/setup'
import { errorText, strings } from '../../strings'
import { KeySteps, OllamaSteps, PythonSteps } from './FirstRunSteps'
import { RunPanel } from './RunPanel'

/**
 * RunTab is the Run tab: the run form, or, while this machine cannot run
 * anything yet (no provider ready, or no Python for the generated code),
 * the first-run panel that says what to do next.
 */
export function RunTab() {
  const need = useProviders((p) => missing(p.loaded, p.providers, p.defaults))
  const dismissed = useSetup((x) => x.dismissed)
  // A ready provider without Python can still do some work (a coding CLI
  // in workspace mode with unsandboxed commands): the user may go on.
  if (!need || (need === 'python' && dismissed)) return <RunPanel />
  return <FirstRun need={need} />
}

/** FirstRun: the steps to a first run, in the UI's language, and Check again. */
export function FirstRun({ need }: { need: Missing }) {
  const s = strings.firstRun
  const stores = useStores()
  const setup = useSetup((x) => x.setup)
  const providers = useProviders((p) => p.providers)
  const needProvider = need !== 'python'

  useEffect(() => {
    void stores.setup.getState().load()
  }, [stores])

  return (
    <section className="card first-run" data-testid="first-run" data-missing={need} aria-labelledby="first-run-title">
      <h2 id="first-run-title" className="first-run-title">
        {s.title}
      </h2>
      <p className="first-run-lead">{needProvider ? s.intro : s.introPython}</p>
      {setup && (
        <p className="first-run-dir">
          {s.configDir}: <code data-testid="config-dir">{setup.config_dir}</code>
        </p>
      )}
      {needProvider && <KeySteps setup={setup} providers={providers} />}
      {needProvider && <OllamaSteps setup={setup} profile={providers.find((p) => p.name === 'ollama')} />}
      {need !== 'provider' && <PythonSteps setup={setup} />}
      <CheckAgain need={need} />
      {needProvider && <NotReady />}
    </section>
  )
}

/** CheckAgain re-reads the configuration on the server and says how that went. */
function CheckAgain({ need }: { need: Missing }) {
  const s = strings.firstRun
  const stores = useStores()
  const checking = useSetup((x) => x.checking)
  const checks = useSetup((x) => x.checks)
  const error = useSetup((x) => x.error)
  const { recheck, dismiss } = stores.setup.getState()
  return (
    <div className="first-run-check">
      <div className="first-run-actions">
        <button type="button" className="btn btn-primary" disabled={checking} onClick={() => void recheck()} data-testid="check-again">
          {checking ? s.checking : s.check}
        </button>
        {need === 'python' && (
          <button type="button" className="btn btn-ghost" onClick={dismiss} data-testid="first-run-anyway">
            {s.anyway}
          </button>
        )}
      </div>
      <p className="muted small">{s.checkHint}</p>
      {error && (
        <p className="notice notice-error" role="alert">
          <strong>{s.checkFailed}:</strong> {errorWords(error)}
        </p>
      )}
      {!error && !checking && checks > 0 && (
        <p className="notice notice-warn" role="status" data-testid="still-not-ready">
          {s.stillNotReady}
        </p>
      )}
    </div>
  )
}

/** NotReady lists why each profile is not ready, folded (the details behind the steps above). */
function NotReady() {
  const providers = useProviders((p) => p.providers)
  const off = providers.filter((p) => !p.available)
  if (off.length === 0) return null
  return (
    <details className="not-ready" data-testid="first-run-reasons">
      <summary>{strings.firstRun.why(off.length)}</summary>
      <ul className="provider-list">
        {off.map((p) => (
          <li key={p.name} className="provider provider-off">
            <div className="provider-row">
              <span className="dot dot-off" aria-hidden="true" />
              <span className="provider-name">{p.name}</span>
              <span className="provider-model">{p.model}</span>
            </div>
            <p className="provider-reason">{p.reason ? errorText(p.reason_code, p.reason_params, p.reason) : strings.run.notReady}</p>
          </li>
        ))}
      </ul>
    </details>
  )
}
