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
      <EyeIcon />
      <span>{where === 'join' ? t.join : t.app}</span>
    </p>
  )
}

/** An eye, inline (no font glyph: it renders the same everywhere). */
function EyeIcon() {
  return (
    <svg className="seen-eye" width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z" />
      <circle cx="12" cy="12" r="3" />
    </svg>
  )
}
