import type { ProviderStatus } from '../../api'
import type { Setup } from '../../api/gen/wire'
import { strings } from '../../strings'
import type { OS } from '../../strings/firstrun'

/** inDir joins a file name to a folder the server named, with that folder's separator. */
export function inDir(dir: string, name: string): string {
  const sep = dir.includes('\\') && !dir.includes('/') ? '\\' : '/'
  return dir.endsWith(sep) ? dir + name : dir + sep + name
}

/** KeySteps: the .env file to write (its real path here) and the variable of each provider. */
export function KeySteps({ setup, providers }: { setup: Setup | null; providers: ProviderStatus[] }) {
  const s = strings.firstRun
  const keyed = providers.filter((p) => p.api_key_env)
  const file = setup?.env_file ?? '.env'
  const example = keyed[0]?.api_key_env ?? 'GEMINI_API_KEY'
  return (
    <div className="first-run-step" data-testid="first-run-keys">
      <h3>{s.keyTitle}</h3>
      <p>
        {s.keyIntro[0]} <code>{file}</code> {s.keyIntro[1]} {setup?.env_file_exists && s.keyExists}
      </p>
      <pre className="first-run-code" data-testid="env-file">
        <span className="muted"># {file}</span>
        {'\n'}
        {example}=…
      </pre>
      <table className="first-run-table">
        <thead>
          <tr>
            <th>{s.variable}</th>
            <th>{s.provider}</th>
            <th>{s.model}</th>
          </tr>
        </thead>
        <tbody>
          {keyed.map((p) => (
            <tr key={p.name} data-testid={`key-${p.api_key_env}`}>
              <td>
                <code>{p.api_key_env}</code>
              </td>
              <td>{p.name}</td>
              <td className="muted">{p.model}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">{s.keyNote}</p>
    </div>
  )
}

/** OllamaSteps: a local model with the built-in `ollama` profile, no key. */
export function OllamaSteps({ setup, profile }: { setup: Setup | null; profile?: ProviderStatus }) {
  const s = strings.firstRun
  const model = profile?.model || 'qwen2.5-coder:7b'
  const yml = setup ? setup.config_file || inDir(setup.config_dir, 'loopforge.yml') : 'loopforge.yml'
  return (
    <div className="first-run-step" data-testid="first-run-ollama">
      <h3>{s.ollamaTitle}</h3>
      <ol>
        <li>{s.ollamaSteps.install}</li>
        <li>
          {s.ollamaSteps.pull} <code data-testid="ollama-pull">ollama pull {model}</code>
        </li>
        <li>
          {s.ollamaSteps.config[0]} <code>{yml}</code>
          {s.ollamaSteps.config[1]} <code>provider: ollama</code>
        </li>
      </ol>
      {profile?.base_url && <p className="muted small">{s.ollamaHint(profile.base_url)}</p>}
    </div>
  )
}

/** PythonSteps: how to install Python on this OS, or why else code cannot run. */
export function PythonSteps({ setup }: { setup: Setup | null }) {
  const s = strings.firstRun
  const other = setup && !setup.code_runs && !setup.python_missing
  const ways = setup ? s.pythonWays[setup.os as OS] : undefined
  return (
    <div className="first-run-step" data-testid="first-run-python" data-os={setup?.os}>
      <h3>{s.pythonTitle}</h3>
      {other ? (
        <p>
          {s.pythonOther} <code>{setup.problem}</code>
        </p>
      ) : (
        <p>{s.pythonIntro}</p>
      )}
      {!other && ways && (
        <ul>
          {ways.map((w) => (
            <li key={w.how}>
              {w.how} {w.command && <code>{w.command}</code>}
            </li>
          ))}
        </ul>
      )}
      <p>{s.pythonThen}</p>
    </div>
  )
}
