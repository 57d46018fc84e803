// What a workspace-mode run shows besides the model's words: the project and
// its git branch/commit, and per iteration the tool calls the model made, the
// validation commands with their output, and the auditor's verdict.

import { duration } from '../../format'
import type { IterationView, RunState, ToolCallView } from '../../stores/runModel'
import { isFinished } from '../../stores/runModel'
import { strings } from '../../strings'
import { CodeView } from '../common/CodeView'
import { OutputStreams } from '../run/ExecPanel'
import { shortPath } from './WorkdirControl'

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`)

function parseObject(input: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(input)
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/**
 * compactArgs sums a tool call's JSON arguments up in one short line: short
 * strings as they are (a path bare), long or multi-line ones by their size,
 * e.g. `calc.py, content: 3 lines`. Arguments that are not a JSON object are
 * shown clipped.
 */
export function compactArgs(input: string, max = 90): string {
  const s = strings.live
  const obj = parseObject(input)
  if (!obj) return clip(input.trim(), max)
  const parts = Object.entries(obj).map(([k, v]) => {
    if (typeof v === 'string') {
      const n = v.split('\n').length
      if (n > 1 || v.length > 48) return `${k}: ${n > 1 ? s.argLines(n) : s.argChars(v.length)}`
      return k === 'path' ? v : `${k}: ${v}`
    }
    return `${k}: ${clip(JSON.stringify(v), 40)}`
  })
  return clip(parts.join(', '), max)
}

/** ToolArgs: each argument of a call, strings verbatim (a file's content stays readable). */
function ToolArgs({ input }: { input: string }) {
  const obj = parseObject(input)
  if (!obj) return <pre className="ws-pre">{input || '{}'}</pre>
  const entries = Object.entries(obj)
  if (entries.length === 0) return <pre className="ws-pre">{'{}'}</pre>
  return (
    <dl className="tool-args">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>
            <pre className="ws-pre">{typeof v === 'string' ? v : JSON.stringify(v, null, 2)}</pre>
          </dd>
        </div>
      ))}
    </dl>
  )
}

function ToolCall({ call }: { call: ToolCallView }) {
  const s = strings.live
  return (
    <li className={`tool ${call.ok ? 'tool-ok' : 'tool-bad'}`} data-testid="tool-call" data-name={call.name} data-ok={call.ok}>
      <details>
        <summary>
          <span className={`tool-mark ${call.ok ? 'mark-ok' : 'mark-bad'}`} aria-label={call.ok ? s.toolOk : s.toolFailed} title={call.ok ? s.toolOk : s.toolFailed}>
            {call.ok ? '✓' : '✕'}
          </span>
          <span className="tool-name mono">{call.name}</span>
          <span className="tool-args-short mono" data-testid="tool-args">
            {compactArgs(call.input)}
          </span>
          <span className="tool-time mono muted">{duration(call.durationMs)}</span>
        </summary>
        <div className="tool-body">
          <span className="out-label">{s.toolArgs}</span>
          <ToolArgs input={call.input} />
          <span className={`out-label${call.ok ? '' : ' out-label-err'}`}>{s.toolOutput}</span>
          <pre className={`ws-pre${call.ok ? '' : ' ws-pre-err'}`} data-testid="tool-output">
            {call.output || s.noOutput}
          </pre>
        </div>
      </details>
    </li>
  )
}

/** ToolCallsPanel: the workspace tools the model called in one iteration (expand one for its arguments and output). */
export function ToolCallsPanel({ it, live }: { it: IterationView; live: boolean }) {
  const s = strings.live
  const failed = it.tools.filter((t) => !t.ok).length
  return (
    <section className="card ws-card" aria-label={s.tools} data-testid="tool-calls">
      <div className="card-head">
        <h3 className="card-title">{s.tools}</h3>
        {it.tools.length > 0 && (
          <span className={`pill${failed ? ' pill-limit_reached' : ''}`} data-testid="tool-count">
            {it.tools.length}
            {failed > 0 && ` · ${failed} ✕`}
          </span>
        )}
      </div>
      {it.tools.length === 0 ? (
        <p className={`muted${live && it.phase === 'generating' ? ' pulse' : ''}`}>{live && it.phase === 'generating' ? s.noTools : s.noToolsDone}</p>
      ) : (
        <ol className="tools">
          {it.tools.map((c, i) => (
            <ToolCall key={c.id ?? i} call={c} />
          ))}
        </ol>
      )}
    </section>
  )
}

/** ValidationPanel: each validation command of one iteration, passed or failed, with its output. */
export function ValidationPanel({ run, it, live }: { run: RunState; it: IterationView; live: boolean }) {
  const s = strings.live
  const vs = it.validations
  const passed = vs.filter((v) => v.passed).length
  let empty: { text: string; pulse?: boolean } | null = null
  if (vs.length === 0) {
    if (live && (it.phase === 'validating' || it.phase === 'generating') && run.validate.length > 0) {
      empty = it.phase === 'validating' ? { text: s.validating, pulse: true } : { text: s.notValidated }
    } else if (run.validate.length === 0 && !run.fromHistory) {
      empty = { text: s.noValidation }
    } else if (it.phase === 'error') {
      empty = { text: s.notValidatedError }
    } else {
      empty = { text: s.notValidated }
    }
  }
  return (
    <section className="card ws-card" aria-label={s.validation} data-testid="validation">
      <div className="card-head">
        <h3 className="card-title">{s.validation}</h3>
        {vs.length > 0 && (
          <span className={`pill ${passed === vs.length ? 'pill-success' : 'pill-error'}`} data-testid="validation-summary">
            {s.checks(passed, vs.length)}
          </span>
        )}
      </div>
      {empty && <p className={`muted${empty.pulse ? ' pulse' : ''}`}>{empty.text}</p>}
      {vs.length > 0 && (
        <ol className="checks">
          {vs.map((v, i) => {
            const verdict = v.passed ? s.passed : v.timedOut ? s.timedOut : s.failed
            return (
              <li key={i} className={`check ${v.passed ? 'check-ok' : 'check-bad'}`} data-testid="validation-command" data-passed={v.passed} data-exit-code={v.exitCode}>
                <details open={!v.passed}>
                  <summary>
                    <span className={`pill ${v.passed ? 'pill-success' : 'pill-error'}`} data-testid="validation-verdict">
                      {v.passed ? '✓' : '✕'} {verdict}
                    </span>
                    <code className="check-cmd">$ {v.command}</code>
                    <span className="check-meta mono">
                      {s.exitCode} {v.exitCode} · {duration(v.durationMs)}
                    </span>
                  </summary>
                  <div className="check-body">
                    <OutputStreams stdout={v.stdout} stderr={v.stderr} testIdPrefix="validation-" />
                    {!v.stdout && !v.stderr && <p className="muted small">{s.noOutputAtAll}</p>}
                    {v.truncated && <p className="muted small">{s.truncated}</p>}
                  </div>
                </details>
              </li>
            )
          })}
        </ol>
      )}
    </section>
  )
}

/** AuditPanel: the auditor's verdict on one iteration's change, with its reasons. */
export function AuditPanel({ it, live }: { it: IterationView; live: boolean }) {
  const s = strings.live
  const a = it.audit
  return (
    <section className="card ws-card" aria-label={s.audit} data-testid="audit" data-approved={a ? String(a.approved) : undefined}>
      <div className="card-head">
        <h3 className="card-title">{s.audit}</h3>
      </div>
      {a ? (
        <>
          <p className={`audit-verdict ${a.approved ? 'audit-ok' : 'audit-bad'}`} data-testid="audit-verdict">
            {a.approved ? '✓' : '✕'} {a.approved ? s.approved : s.rejected}
          </p>
          {a.reasons.length > 0 && (
            <ul className="audit-reasons" data-testid="audit-reasons">
              {a.reasons.map((r, i) => (
                <li key={i}>{r}</li>
              ))}
            </ul>
          )}
        </>
      ) : it.auditing && live ? (
        <p className="muted pulse">{s.auditing}</p>
      ) : (
        <p className="muted">{s.notAudited}</p>
      )}
    </section>
  )
}

/** firstLine of a commit message (its subject). */
function firstLine(s: string): string {
  return s.split('\n')[0] ?? ''
}

/** WorkspaceSummary: the project, its checks and auditor, and what happened in git. */
export function WorkspaceSummary({ run }: { run: RunState }) {
  const s = strings.live
  const g = run.git
  const branch = g.branch ?? ''
  const rest = g.message ? g.message.split('\n').slice(1).join('\n').trim() : ''
  return (
    <section className="card ws-summary" aria-label={s.workspaceBadge} data-testid="ws-summary">
      <dl className="facts ws-facts">
        <div>
          <dt>{s.project}</dt>
          <dd className="mono" title={run.workdir} data-testid="ws-workdir">
            {run.workdir ? shortPath(run.workdir, 48) : '—'}
          </dd>
        </div>
        <div>
          <dt>{s.checksLabel}</dt>
          <dd className="mono" data-testid="ws-checks">
            {run.validate.length ? run.validate.join(' · ') : s.none}
          </dd>
        </div>
        <div>
          <dt>{s.auditorLabel}</dt>
          <dd className="mono">{run.auditor || s.none}</dd>
        </div>
        {branch && (
          <div>
            <dt>{s.branch}</dt>
            <dd className="mono" data-testid="ws-branch">
              {branch}
            </dd>
          </div>
        )}
        {g.worktree && (
          <div>
            <dt>{s.worktree}</dt>
            <dd className="mono" title={g.worktree} data-testid="ws-worktree">
              {shortPath(g.worktree, 48)}
            </dd>
          </div>
        )}
      </dl>
      {g.commit && (
        <div className="git-line git-commit" role="status" data-testid="git-commit" data-commit={g.commit} data-branch={branch}>
          <span className="git-icon" aria-hidden="true">
            ✓
          </span>
          <div>
            <p className="git-head">
              {s.committed} <code className="git-hash">{g.commit.slice(0, 7)}</code>
              {branch && (
                <>
                  {' '}
                  {s.onBranch} <code>{branch}</code>
                </>
              )}
            </p>
            {g.message && <p className="git-subject">{firstLine(g.message)}</p>}
            {rest && (
              <details className="git-more">
                <summary>{s.fullMessage}</summary>
                <pre className="ws-pre">{rest}</pre>
              </details>
            )}
          </div>
        </div>
      )}
      {g.uncommitted && (
        <div className="git-line git-uncommitted" role="status" data-testid="git-uncommitted">
          <span className="git-icon" aria-hidden="true">
            !
          </span>
          <p className="git-head">{branch ? s.uncommitted(branch) : s.uncommittedNoBranch}</p>
        </div>
      )}
      {!g.commit && !g.uncommitted && branch && !isFinished(run) && (
        <p className="muted small git-working">
          {s.workingOn} <code>{branch}</code>
        </p>
      )}
      {g.metadata && (
        <p className="muted small git-meta">
          {s.metadata}: <code data-testid="ws-metadata">{g.metadata}</code>
        </p>
      )}
    </section>
  )
}

/** ChangesPanel: the diff of the run's last attempt against the starting commit (run_finished's final_code). */
export function ChangesPanel({ run }: { run: RunState }) {
  const s = strings.live
  if (!isFinished(run) || !run.finalCode.trim()) return null
  return (
    <details className="card ws-changes" open data-testid="ws-changes">
      <summary className="card-title">{s.changes}</summary>
      <CodeView code={run.finalCode} language="diff" label={s.changes} testId="ws-diff" />
    </details>
  )
}
