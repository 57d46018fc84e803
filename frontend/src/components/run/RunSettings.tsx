import { useShallow } from 'zustand/shallow'
import { useComposer } from '../../stores'
import { limits, toLanguage } from '../../stores/composer'
import { strings } from '../../strings'

/**
 * RunSettings: the loop's settings in the run form — iterations and time
 * limit, and for a script run its language, reflection and stdin. Until the
 * configured settings arrive the fields show no number at all: the built-in
 * 5 / 30 s would flash and then change under the user's eyes.
 */
export function RunSettings() {
  const s = strings.run
  const c = useComposer(
    useShallow((x) => ({
      maxIterations: x.maxIterations,
      iterationCap: x.iterationCap,
      reflect: x.reflect,
      timeoutSeconds: x.timeoutSeconds,
      language: x.language,
      stdin: x.stdin,
      mode: x.mode,
      defaultsLoaded: x.defaultsLoaded,
    })),
  )
  const setC = useComposer((x) => x.set)
  const pending = !c.defaultsLoaded
  const workspace = c.mode === 'workspace'
  return (
    <fieldset className="settings" aria-busy={pending}>
      <legend>{s.settings}</legend>
      <label>
        <span>{s.maxIterations}</span>
        <input
          type="number"
          min={limits.minIterations}
          max={c.iterationCap}
          value={pending ? '' : c.maxIterations}
          placeholder={pending ? s.loadingValue : undefined}
          disabled={pending}
          onChange={(e) => setC({ maxIterations: Number(e.target.value) })}
          data-testid="max-iterations"
        />
      </label>
      <label>
        <span>{s.timeout}</span>
        <input
          type="number"
          min={limits.timeoutSeconds.min}
          max={limits.timeoutSeconds.max}
          value={pending ? '' : c.timeoutSeconds}
          placeholder={pending ? s.loadingValue : undefined}
          disabled={pending}
          onChange={(e) => setC({ timeoutSeconds: Number(e.target.value) })}
          data-testid="timeout"
        />
      </label>
      {!workspace && (
        <>
          <label>
            <span>{s.language}</span>
            <select
              value={pending ? '' : c.language}
              disabled={pending}
              onChange={(e) => setC({ language: toLanguage(e.target.value) })}
              data-testid="language"
            >
              {pending && <option value="">{s.loadingValue}</option>}
              <option value="python">{s.languages.python}</option>
              <option value="sh">{s.languages.sh}</option>
              <option value="node">{s.languages.node}</option>
            </select>
          </label>
          <label className={`switch${pending ? ' switch-pending' : ''}`}>
            <span>{s.reflect}</span>
            <input
              type="checkbox"
              role="switch"
              checked={pending ? false : c.reflect}
              disabled={pending}
              onChange={(e) => setC({ reflect: e.target.checked })}
              data-testid="reflect"
            />
            <span className="switch-text">{pending ? s.loadingValue : c.reflect ? s.reflectOn : s.reflectOff}</span>
          </label>
          <label className="stdin-field">
            <span>{s.stdin}</span>
            <textarea
              rows={2}
              value={c.stdin}
              placeholder={s.stdinPlaceholder}
              spellCheck={false}
              onChange={(e) => setC({ stdin: e.target.value })}
              title={s.stdinHint}
              data-testid="stdin"
            />
          </label>
        </>
      )}
    </fieldset>
  )
}
