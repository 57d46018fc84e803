import { errorWords } from '../../api'
import { useClassroom, useStores } from '../../stores'
import { strings } from '../../strings'
import { LookSwitches } from '../common/LookSwitches'

/** Waiting: while the server says who the caller is (a moment on a LAN). */
export function Waiting() {
  return (
    <div className="gate" aria-busy="true" data-testid="gate-loading">
      <p className="muted pulse">{strings.classroom.loading}</p>
    </div>
  )
}

/**
 * SignedOut: the server does not know this browser (no token, no student
 * cookie — or the instructor removed the student), or could not be
 * reached. It points to the join page, or offers to try again.
 */
export function SignedOut() {
  const stores = useStores()
  const t = strings.classroom
  const status = useClassroom((c) => c.status)
  const error = useClassroom((c) => c.error)
  const removed = useClassroom((c) => c.removed)
  return (
    <div className="gate" data-testid="gate" data-status={status}>
      <div className="join-corner">
        <LookSwitches />
      </div>
      <div className="join-card card">
        {status === 'failed' ? (
          <>
            <h1 className="join-title">{t.meFailed}</h1>
            <p className="notice notice-error" role="alert">
              {errorWords(error)}
            </p>
            <button type="button" className="btn btn-primary" onClick={() => void stores.classroom.getState().loadMe()}>
              {t.retry}
            </button>
          </>
        ) : (
          <>
            <h1 className="join-title">{removed ? t.student.removed : t.signedOut.title}</h1>
            <p className="muted">{t.signedOut.hint}</p>
            <a className="btn btn-primary btn-big" href="/join" data-testid="gate-join">
              {t.signedOut.join}
            </a>
          </>
        )}
      </div>
    </div>
  )
}
