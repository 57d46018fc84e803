import { strings } from '../../strings'

/**
 * SeenNotice tells a student that the instructor can see their runs (the
 * learning path): on the join page, before they join, and above their run
 * form while they are in the class.
 */
export function SeenNotice({ where }: { where: 'join' | 'app' }) {
  const t = strings.classroom.path.seen
  return (
    <p className={`seen-notice seen-notice-${where} muted small`} role="note" data-testid={`seen-notice-${where}`}>
      <span className="seen-icon" aria-hidden="true">
        👁
      </span>{' '}
      {where === 'join' ? t.join : t.app}
    </p>
  )
}
