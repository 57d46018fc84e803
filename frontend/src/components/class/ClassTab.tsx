import { useEffect, useMemo, useState } from 'react'
import { errorWords } from '../../api'
import type { ClassExportFormat } from '../../api/class'
import type { WallEntry } from '../../api/gen/wire'
import { sortWall, wallCounts } from '../../classroom'
import { useClassroom, useRuns, useStores } from '../../stores'
import { isFinished } from '../../stores/runModel'
import { strings } from '../../strings'
import { AssignmentForm, LimitsForm } from './ClassForms'
import { JoinInfo } from './JoinInfo'
import { LearningPath } from './LearningPath'
import { LimitsSummary } from './LimitsSummary'
import { StageTitle, useSpotlit, WatchedRun } from './Stage'
import { Wall } from './Wall'

type View = { kind: 'wall' } | { kind: 'student'; id: string } | { kind: 'stage' }
type Panel = 'assignment' | 'limits' | null

/**
 * ClassTab (the instructor of `loopforge class`): how to join, the class's
 * controls (assignment, limits, pause, export, projector) and the live
 * wall; a card opens that student's run (Stop, Spotlight, Remove), and the
 * stage shows the spotlighted run as the projector window does.
 */
export function ClassTab() {
  const stores = useStores()
  const t = strings.classroom.instructor
  const cls = useClassroom((c) => c.class)
  const wall = useClassroom((c) => c.wall)
  const busy = useClassroom((c) => c.busy)
  const actionError = useClassroom((c) => c.actionError)
  const entries = useMemo(() => sortWall(Object.values(wall)), [wall])
  const counts = useMemo(() => wallCounts(entries), [entries])
  const spot = useSpotlit()
  const [view, setView] = useState<View>({ kind: 'wall' })
  const [panel, setPanel] = useState<Panel>(null)
  const [joinOpen, setJoinOpen] = useState(true)

  useEffect(() => {
    const c = stores.classroom.getState()
    c.follow()
    void c.loadWall()
  }, [stores])

  if (!cls) return null
  const c = stores.classroom.getState()
  const toggle = (p: Panel) => setPanel((x) => (x === p ? null : p))
  const focused = view.kind === 'student' ? wall[view.id] : undefined

  return (
    <div className="class-tab" data-testid="class-tab" data-paused={cls.paused}>
      <div className="class-head">
        <div className="class-head-main">
          <div className="class-title-row">
            <h2 className="class-name" data-testid="class-name">
              {cls.name}
            </h2>
            <p className="class-counts muted" data-testid="class-counts">
              <span>{t.students(counts.students)}</span>
              {counts.running > 0 && <span className="count-running">{t.running(counts.running)}</span>}
              {counts.queued > 0 && <span>{t.queued(counts.queued)}</span>}
              {counts.success > 0 && <span className="count-ok">{t.succeeded(counts.success)}</span>}
              {counts.failed > 0 && <span className="count-failed">{t.failed(counts.failed)}</span>}
            </p>
          </div>
          <div className="class-actions">
            <button type="button" className={`btn${panel === 'assignment' ? ' btn-on' : ''}`} aria-expanded={panel === 'assignment'} onClick={() => toggle('assignment')} data-testid="class-assignment">
              {t.assignment}
              {cls.assignment && <span className="class-dot" aria-hidden="true" />}
            </button>
            <button type="button" className={`btn${panel === 'limits' ? ' btn-on' : ''}`} aria-expanded={panel === 'limits'} onClick={() => toggle('limits')} data-testid="class-limits">
              {t.limits}
            </button>
            <button
              type="button"
              className={`btn${cls.paused ? ' btn-primary' : ''}`}
              disabled={busy === 'pause'}
              onClick={() => void c.setPaused(!cls.paused)}
              aria-pressed={cls.paused}
              data-testid="class-pause"
            >
              {cls.paused ? t.resume : t.pause}
            </button>
            <ExportClassMenu />
            <button
              type="button"
              className="btn btn-ghost"
              title={t.projectorTitle}
              onClick={() => window.open('/#/stage', 'loopforge-stage', 'popup')}
              data-testid="class-projector"
            >
              {t.projector} ↗
            </button>
          </div>
          {cls.paused && (
            <p className="notice notice-warn class-paused-note" role="status">
              {t.pausedNote}
            </p>
          )}
          {actionError && (
            <p className="notice notice-error" role="alert" data-testid="class-error">
              <strong>{t.actionFailed}:</strong> {errorWords(actionError.message)}{' '}
              <button type="button" className="btn btn-small btn-ghost" onClick={() => c.clearActionError()}>
                ✕
              </button>
            </p>
          )}
        </div>
        {joinOpen ? (
          <div className="class-join">
            <JoinInfo cls={cls} />
            <button type="button" className="btn btn-small btn-ghost class-join-hide" onClick={() => setJoinOpen(false)}>
              {t.hideJoin}
            </button>
          </div>
        ) : (
          <button type="button" className="btn btn-small class-join-show" onClick={() => setJoinOpen(true)} data-testid="join-show">
            {t.code}: <strong>{cls.join_code}</strong> · {t.showJoin}
          </button>
        )}
        {/* A row of its own under the head: beside the join code, its length would push the code under the buttons. */}
        {joinOpen && <LimitsSummary limits={cls.limits} onChange={() => setPanel('limits')} />}
      </div>

      {panel === 'assignment' && <AssignmentForm cls={cls} />}
      {panel === 'limits' && <LimitsForm cls={cls} />}

      {spot.runId && view.kind !== 'stage' && (
        <div className="spot-bar" role="status" data-testid="spot-bar">
          <span className="tag">{t.onStage}</span>
          <StageTitle entry={spot.entry} />
          <button type="button" className="btn btn-small btn-primary" onClick={() => setView({ kind: 'stage' })} data-testid="show-stage">
            {t.showStage}
          </button>
          <button type="button" className="btn btn-small" disabled={busy === 'spotlight'} onClick={() => void c.spotlight('')} data-testid="clear-stage">
            {t.clearStage}
          </button>
        </div>
      )}

      {view.kind === 'stage' ? (
        <StagePane onBack={() => setView({ kind: 'wall' })} />
      ) : focused ? (
        <StudentPane
          entry={focused}
          onBack={() => setView({ kind: 'wall' })}
          onStage={async (runId) => {
            if (await c.spotlight(runId)) setView({ kind: 'stage' })
          }}
        />
      ) : (
        <Wall entries={entries} spotlight={cls.spotlight ?? ''} onOpen={(id) => setView({ kind: 'student', id })} />
      )}
    </div>
  )
}

/** ExportClassMenu: every student's final scripts and the summary (zip), or the summary table alone. */
function ExportClassMenu() {
  const stores = useStores()
  const t = strings.classroom.instructor
  const exporting = useClassroom((c) => c.busy === 'export')
  if (!stores.api.fetchClassExport) return null
  const formats: Array<[ClassExportFormat, string]> = [
    ['zip', t.exportZip],
    ['csv', t.exportCsv],
    ['md', t.exportMd],
    ['attempts', t.exportAttempts],
    ['grades', t.exportGrades],
    ['grade-tests', t.exportGradeTests],
  ]
  return (
    <details className="export-menu class-export" data-testid="class-export">
      <summary className="btn">{exporting ? strings.exports.saving : t.export} ▾</summary>
      <ul className="export-list">
        {formats.map(([f, label]) => (
          <li key={f}>
            <button
              type="button"
              className="export-item"
              onClick={(e) => {
                ;(e.currentTarget.closest('details') as HTMLDetailsElement | null)?.removeAttribute('open')
                void stores.classroom.getState().exportClass(f)
              }}
              data-testid={`class-export-${f}`}
            >
              {label}
            </button>
          </li>
        ))}
      </ul>
    </details>
  )
}

/** StudentPane: one student's current run, read-only for the instructor, with Stop, Spotlight and Remove. */
function StudentPane({ entry, onBack, onStage }: { entry: WallEntry; onBack(): void; onStage(runId: string): void }) {
  const stores = useStores()
  const t = strings.classroom.instructor
  const busy = useClassroom((c) => c.busy)
  const spotlight = useClassroom((c) => c.class?.spotlight ?? '')
  const runId = entry.current?.run_id ?? ''
  const run = useRuns((r) => (runId ? r.runs[runId] : undefined))
  const [confirming, setConfirming] = useState(false)
  const live = run ? !isFinished(run) : entry.current?.status === 'running'
  const [pane, setPane] = useState<'run' | 'path'>(runId ? 'run' : 'path')
  return (
    <section className="student-pane" aria-label={entry.name} data-testid="student-pane" data-student={entry.name}>
      <div className="student-pane-bar">
        <button type="button" className="btn btn-ghost" onClick={onBack} data-testid="wall-back">
          ← {t.back}
        </button>
        <h3 className="student-pane-name">{entry.name}</h3>
        {entry.removed && <span className="tag">{t.removedTag}</span>}
        <span className="student-pane-usage muted small">{t.usage(entry.usage.runs, String(entry.usage.tokens))}</span>
        <div className="student-pane-actions">
          {runId && (
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy === 'spotlight' || spotlight === runId}
              title={t.spotlightTitle}
              onClick={() => onStage(runId)}
              data-testid="spotlight"
            >
              ★ {spotlight === runId ? t.onStage : t.spotlight}
            </button>
          )}
          {runId && (
            <button
              type="button"
              className="btn btn-danger"
              disabled={!live || run?.cancelling}
              onClick={() => void stores.runs.getState().cancel(runId)}
              data-testid="student-stop"
            >
              {run?.cancelling ? strings.run.stopping : t.stop}
            </button>
          )}
          {!entry.removed &&
            (confirming ? (
              <span className="confirm" role="group">
                <span className="small">{t.confirmRemove(entry.name)}</span>
                <button
                  type="button"
                  className="btn btn-danger btn-small"
                  disabled={busy === 'remove'}
                  onClick={async () => {
                    if (await stores.classroom.getState().removeStudent(entry.student_id)) setConfirming(false)
                  }}
                  data-testid="remove-confirm"
                >
                  {t.confirm}
                </button>
                <button type="button" className="btn btn-small" onClick={() => setConfirming(false)}>
                  {t.keep}
                </button>
              </span>
            ) : (
              <button type="button" className="btn btn-ghost btn-danger-text" onClick={() => setConfirming(true)} data-testid="remove-student">
                {t.remove}
              </button>
            ))}
        </div>
      </div>
      <div className="student-pane-tabs" role="tablist">
        {(['run', 'path'] as const).map((p) => (
          <button key={p} type="button" role="tab" aria-selected={pane === p} className={`btn btn-small${pane === p ? ' btn-on' : ''}`} onClick={() => setPane(p)} data-testid={`student-tab-${p}`}>
            {p === 'run' ? strings.classroom.path.tabRun : strings.classroom.path.tabPath}
          </button>
        ))}
      </div>
      {pane === 'path' ? (
        <LearningPath entry={entry} />
      ) : runId ? (
        <WatchedRun key={runId} runId={runId} />
      ) : (
        <p className="muted empty-run">{t.noRun}</p>
      )}
    </section>
  )
}

/** StagePane: the spotlighted run as the projector shows it. */
function StagePane({ onBack }: { onBack(): void }) {
  const t = strings.classroom.instructor
  const { runId, entry } = useSpotlit()
  return (
    <section className="stage-pane" data-testid="stage-pane" data-spotlight={runId}>
      <div className="student-pane-bar">
        <button type="button" className="btn btn-ghost" onClick={onBack} data-testid="stage-back">
          ← {t.back}
        </button>
        <span className="tag">{t.onStage}</span>
        <StageTitle entry={entry} />
      </div>
      {runId ? <WatchedRun key={runId} runId={runId} stage /> : <p className="muted empty-run">{t.stageEmpty}</p>}
    </section>
  )
}
