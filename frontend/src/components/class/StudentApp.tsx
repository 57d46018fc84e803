import { useEffect, useState } from 'react'
import { assignedTests } from '../../classroom'
import { count } from '../../format'
import { promptSummary } from '../../stage'
import { useClassroom, useComposer, useStores } from '../../stores'
import { strings } from '../../strings'
import { countTests } from '../../strings/tests'
import { Header, type Tab } from '../common/Header'
import { HistoryView } from '../history/HistoryView'
import { RunPanel } from '../run/RunPanel'
import { SeenNotice } from './SeenNotice'

/**
 * StudentApp: the run form and run view of a student who joined a class —
 * limited to what the instructor allows (providers and presets come
 * filtered from the server, no folder, no network opt-in, no Stats; the
 * history holds their own sessions only) — with the class's news above the
 * form: the pause, the assignment, their use of the limits.
 */
export function StudentApp() {
  const stores = useStores()
  const [tab, setTab] = useState<Tab>('run')
  const cls = useClassroom((c) => c.class)
  const me = useClassroom((c) => c.me)
  const workspace = cls?.limits.scratch_workspace === true
  const paused = cls?.paused === true
  const mode = useComposer((c) => c.mode)

  useEffect(() => {
    void stores.providers.getState().load()
    stores.classroom.getState().follow()
  }, [stores])

  // No workspace mode unless the instructor gives each student a scratch folder.
  useEffect(() => {
    if (!workspace && mode === 'workspace') stores.composer.getState().set({ mode: 'script' })
  }, [workspace, mode, stores])

  const badge = (
    <span className="student-badge" data-testid="student-badge">
      {cls && <span className="student-class">{cls.name}</span>}
      {me?.name && <strong className="student-name">{me.name}</strong>}
    </span>
  )

  return (
    <div className="app app-student">
      <Header tab={tab} onTab={setTab} tabs={['run', 'history']} workdir={false} extra={badge} />
      <main className="main">
        {tab === 'run' ? (
          <RunPanel student={{ workspace, paused, banner: <StudentBanners />, assignedTests: assignedTests(cls?.assignment) }} />
        ) : (
          <HistoryView
            onContinued={() => {
              stores.compare.getState().close()
              setTab('run')
            }}
            onOpenComparison={(detail) => {
              stores.compare.getState().open(detail)
              setTab('run')
            }}
            onComparisonContinued={() => setTab('run')}
          />
        )}
      </main>
    </div>
  )
}

/** StudentBanners: the pause, a new assignment to accept, the current assignment and the student's use of the limits. */
export function StudentBanners() {
  const stores = useStores()
  const t = strings.classroom.student
  const cls = useClassroom((c) => c.class)
  const pending = useClassroom((c) => c.pendingAssignment)
  if (!cls) return null
  const a = cls.assignment
  const l = cls.limits
  const u = cls.usage
  const usage = [
    l.concurrent_runs > 0 ? t.running(u.running_runs, l.concurrent_runs) : null,
    l.runs_per_hour > 0 ? t.runsHour(u.runs_last_hour, l.runs_per_hour) : null,
    // What the budget counts (its window; runs moved to the budget model left out), running runs' holds included.
    l.tokens_per_student > 0 ? t.tokens(count(u.budget_tokens + u.budget_held), count(l.tokens_per_student)) : null,
  ].filter((x): x is string => x != null)
  return (
    <div className="class-banners">
      {cls.paused && (
        <div className="banner banner-paused" role="status" data-testid="class-paused">
          <span className="banner-icon" aria-hidden="true">
            ❚❚
          </span>
          <div className="banner-text">
            <strong>{t.paused}</strong>
            <p className="banner-detail">{t.pausedHint}</p>
          </div>
        </div>
      )}
      {pending && (
        <div className="banner banner-assignment" role="alert" data-testid="assignment-ask">
          <span className="banner-icon" aria-hidden="true">
            ✎
          </span>
          <div className="banner-text">
            <strong>{t.newAssignment}</strong>
            <p className="banner-detail">{t.newAssignmentHint}</p>
          </div>
          <div className="banner-actions">
            <button type="button" className="btn btn-primary btn-small" onClick={() => stores.classroom.getState().resolveAssignment(true)} data-testid="assignment-replace">
              {t.replace}
            </button>
            <button type="button" className="btn btn-small" onClick={() => stores.classroom.getState().resolveAssignment(false)} data-testid="assignment-keep">
              {t.keep}
            </button>
          </div>
        </div>
      )}
      {a && !pending && (
        <div className="assignment-line" data-testid="assignment-banner">
          <span className="tag">{t.assignment}</span>
          <strong className="assignment-title">{a.title || promptSummary(a.prompt, 90)}</strong>
          {a.title && !a.prompt_only && <span className="muted assignment-prompt">{promptSummary(a.prompt, 90)}</span>}
          {/* A prompt problem fills nothing: its refill would only empty the student's own prompt. */}
          {!a.prompt_only && (
            <button type="button" className="btn btn-ghost btn-small" onClick={() => stores.classroom.getState().refillAssignment()} data-testid="assignment-refill">
              {t.refill}
            </button>
          )}
        </div>
      )}
      {a && !pending && (a.prompt_only || assignedTests(a)) && <AssignmentProblem />}
      {usage.length > 0 && (
        <p className="usage-line muted small" data-testid="student-usage">
          <span>{t.usage}:</span> {usage.join(' · ')}
        </p>
      )}
      <SeenNotice where="app" />
    </div>
  )
}

/**
 * AssignmentProblem: a prompt problem's statement (the student writes the
 * prompt, not the assignment) and the tests that judge the run — the visible
 * ones as the server sent them, the hidden ones only counted.
 */
function AssignmentProblem() {
  const t = strings.classroom.student
  const a = useClassroom((c) => c.class?.assignment)
  if (!a) return null
  const visible = a.tests ?? ''
  const { n } = countTests(visible)
  const hidden = a.hidden_tests ?? 0
  return (
    <div className="assignment-problem card" data-testid="assignment-problem">
      {a.prompt_only && (
        <>
          <strong>{t.problem}</strong>
          <p className="assignment-statement" data-testid="assignment-statement">
            {a.prompt}
          </p>
          <p className="muted small">{t.problemHint}</p>
        </>
      )}
      {n + hidden > 0 && (
        <p className="small" data-testid="assignment-judged">
          {t.judged(n, hidden)}
        </p>
      )}
      {n > 0 && (
        <details>
          <summary className="small">{t.visibleTests}</summary>
          <pre className="mono tests-yaml" data-testid="assignment-visible-tests">
            {visible}
          </pre>
        </details>
      )}
    </div>
  )
}
