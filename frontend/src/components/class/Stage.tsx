import { useEffect, useMemo } from 'react'
import type { WallEntry } from '../../api/gen/wire'
import { useClassroom, useStores } from '../../stores'
import { strings } from '../../strings'
import { RunView } from '../run/RunView'
import { JoinInfo } from './JoinInfo'
import { LookSwitches } from '../common/LookSwitches'

/** WatchedRun: a run of any student's, streamed from the server (from its first event) and shown. */
export function WatchedRun({ runId, stage = false }: { runId: string; stage?: boolean }) {
  const stores = useStores()
  useEffect(() => {
    if (runId) stores.runs.getState().watch(runId)
  }, [runId, stores])
  return <RunView runId={runId} stage={stage} keys />
}

/** useSpotlit: the run on the stage and the wall line of the student it belongs to. */
export function useSpotlit(): { runId: string; entry: WallEntry | undefined } {
  const runId = useClassroom((c) => c.class?.spotlight ?? '')
  const wall = useClassroom((c) => c.wall)
  const entry = useMemo(() => Object.values(wall).find((e) => runId && e.current?.run_id === runId), [wall, runId])
  return { runId, entry }
}

/** StageTitle: whose run is on the stage. */
export function StageTitle({ entry }: { entry: WallEntry | undefined }) {
  if (!entry) return null
  return (
    <span className="stage-who" data-testid="stage-who">
      <span className="stage-star" aria-hidden="true">
        ★
      </span>{' '}
      <strong>{entry.name}</strong>
      {entry.current && <span className="muted"> · {entry.current.provider}</span>}
    </span>
  )
}

/**
 * ProjectorApp (/#/stage, opened by the instructor for the projector): the
 * spotlighted run on the stage in projector type, following the spotlight
 * live; with nothing spotlighted, how to join.
 */
export function ProjectorApp() {
  const stores = useStores()
  const t = strings.classroom.stage
  const cls = useClassroom((c) => c.class)
  const { runId, entry } = useSpotlit()

  useEffect(() => {
    const c = stores.classroom.getState()
    c.follow()
    void c.loadWall()
  }, [stores])

  return (
    <div className="app projector-app" data-testid="projector-app" data-spotlight={runId}>
      <header className="topbar stage-topbar" data-sticky="">
        <div className="brand" aria-label="loopforge">
          <span className="brand-mark" aria-hidden="true">
            ⟳
          </span>
          <span>
            loop<span className="accent">forge</span>
          </span>
        </div>
        {cls && <span className="stage-class">{cls.name}</span>}
        <StageTitle entry={entry} />
        <div className="topbar-right">
          <LookSwitches />
        </div>
      </header>
      <main className="main">
        {runId ? (
          <WatchedRun key={runId} runId={runId} stage />
        ) : (
          <div className="stage-idle" data-testid="stage-idle">
            <p className="stage-idle-text">{t.nothing}</p>
            {cls && <JoinInfo cls={cls} big />}
          </div>
        )}
      </main>
    </div>
  )
}
