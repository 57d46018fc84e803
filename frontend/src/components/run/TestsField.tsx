import { useComposer } from '../../stores'
import { strings } from '../../strings'
import { countTests } from '../../strings/tests'

/**
 * TestsField: the run form's Tests panel, beside the prompt (script mode).
 * The tests are YAML in the format of a task file's `tests:` (the server
 * checks them and says which test is wrong); a preset with tests fills it.
 * Folded while empty, so a run without tests looks as it always did.
 */
export function TestsField() {
  const s = strings.tests.panel
  const tests = useComposer((x) => x.tests)
  const set = useComposer((x) => x.set)
  const { n, hidden } = countTests(tests)
  return (
    <details className="tests-field" open={tests.trim() !== '' || undefined} data-testid="tests-field">
      <summary>
        {s.title}
        {n > 0 && (
          <span className="muted small" data-testid="tests-field-count">
            {' '}
            · {s.count(n, hidden)}
          </span>
        )}
      </summary>
      <p className="muted small">{s.hint}</p>
      <textarea
        className="mono tests-yaml"
        rows={8}
        value={tests}
        placeholder={s.placeholder}
        spellCheck={false}
        onChange={(e) => set({ tests: e.target.value })}
        aria-label={s.title}
        data-testid="tests-yaml"
      />
      {tests !== '' && (
        <button type="button" className="btn btn-small" onClick={() => set({ tests: '' })} data-testid="tests-clear">
          {s.clear}
        </button>
      )}
    </details>
  )
}
