import type { ClassLimits } from '../../api/gen/wire'
import { num } from '../../strings/class'
import { strings } from '../../strings'

/** limitItems words the counts and budgets of a class's limits (0 = none, left out), in the UI's language. */
export function limitItems(l: ClassLimits): string[] {
  const t = strings.classroom.instructor.limitItems
  const out: string[] = []
  const add = (n: number, word: (s: string) => string, decimals = 0) => {
    if (n > 0) out.push(word(num(String(n), decimals)))
  }
  add(l.max_iterations, t.iterations)
  add(l.concurrent_runs, t.atOnce)
  add(l.runs_per_hour, t.perHour)
  // 0 means a student may send none (not "no limit"), left out like the others.
  add(l.max_student_tests ?? 0, t.studentTests)
  add(l.tokens_per_student, t.tokens)
  add(l.cost_per_student_usd, t.cost, 2)
  add(l.tokens_for_class, t.classTokens)
  const budgets = l.tokens_per_student > 0 || l.tokens_for_class > 0 || l.cost_per_student_usd > 0
  if (budgets && l.budget_window && l.budget_window !== 'class') out.push(t.window(l.budget_window))
  if (l.budget_profile) out.push(t.budgetProfile(l.budget_profile))
  return out
}

/**
 * LimitsSummary: what each student may spend, shown beside the join code
 * so the instructor sees it before handing the code out; Change opens the
 * limits form.
 */
export function LimitsSummary({ limits, onChange }: { limits: ClassLimits; onChange: () => void }) {
  const t = strings.classroom.instructor
  const items = limitItems(limits)
  return (
    <p className="class-limits-summary" data-testid="limits-summary">
      <span className="join-label">{t.limitsNow}</span>{' '}
      <span data-testid="limits-summary-items" className={items.length ? undefined : 'notice-warn'}>
        {items.length ? items.join(' · ') : t.limitsNone}
      </span>{' '}
      <button type="button" className="btn btn-small btn-ghost" onClick={onChange} data-testid="limits-summary-change">
        {t.limitsChange}
      </button>
    </p>
  )
}
