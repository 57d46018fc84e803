// The stage: while a run is live the iteration on screen is what the class
// came to see. These are the pure rules behind it — which keys do what, and
// which iteration the view shows (the newest, unless the user stepped back
// or scrolled away) — kept apart from React so they can be tested alone.

/** What a key press asks of the stage. */
export type Shortcut = 'run' | 'stop' | 'prev' | 'next' | 'pagePrev' | 'pageNext' | 'follow' | 'projector'

export interface KeyLike {
  key: string
  ctrlKey?: boolean
  metaKey?: boolean
  altKey?: boolean
  isComposing?: boolean
  defaultPrevented?: boolean
  target?: EventTarget | null
}

/** Input types that take no typing (a key press there is not text). */
const NOT_TYPED = new Set(['checkbox', 'button', 'submit', 'reset', 'file', 'image', 'color'])

/**
 * isTextField: the element takes typing or uses the arrow keys itself — a
 * text box, a number, a select, a radio group, a slider, editable content.
 */
export function isTextField(t: EventTarget | null | undefined): boolean {
  const el = t as HTMLElement | null | undefined
  if (!el || typeof el.tagName !== 'string') return false
  const tag = el.tagName.toUpperCase()
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true
  if (tag === 'INPUT') return !NOT_TYPED.has(((el as HTMLInputElement).type || 'text').toLowerCase())
  if (el.isContentEditable) return true
  const ce = el.getAttribute?.('contenteditable')
  return ce === '' || ce === 'true'
}

/** inOverlay: the key belongs to an open dialog or menu (Escape closes that, not the run). */
function inOverlay(t: EventTarget | null | undefined): boolean {
  const el = t as Element | null | undefined
  if (el && typeof el.closest === 'function' && el.closest('[role=dialog], [aria-modal="true"], details[open]')) return true
  return typeof document !== 'undefined' && document.querySelector('[aria-modal="true"]') != null
}

/**
 * shortcut maps a key press to a stage action, or null. Ctrl+Enter (⌘+Enter)
 * runs from anywhere, the prompt box included; the single keys act only
 * when no text field has the focus, no modifier is held and no dialog is open.
 */
export function shortcut(e: KeyLike): Shortcut | null {
  if (e.defaultPrevented || e.isComposing) return null
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.altKey) return 'run'
  if (e.ctrlKey || e.metaKey || e.altKey) return null
  if (isTextField(e.target) || inOverlay(e.target)) return null
  switch (e.key) {
    case 'Escape':
      return 'stop'
    case 'ArrowLeft':
      return 'prev'
    case 'ArrowRight':
      return 'next'
    case 'PageUp':
      return 'pagePrev'
    case 'PageDown':
      return 'pageNext'
    case 'f':
    case 'F':
      return 'follow'
    case 'p':
    case 'P':
      return 'projector'
    default:
      return null
  }
}

/** Keys that scroll the page up: pressed on a live stage, the user is looking back. */
export function scrollsUp(e: KeyLike): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey || isTextField(e.target)) return false
  return e.key === 'ArrowUp' || e.key === 'PageUp' || e.key === 'Home'
}

// ---------- which iteration is on stage ----------

/** pinned: the iteration the user chose to look at; null follows the newest. */
export type Pinned = number | null

export interface StageRun {
  /** The iteration numbers, in order. */
  ns: number[]
  live: boolean
}

export type FollowAction =
  | { type: 'select'; n: number }
  | { type: 'step'; by: number }
  /** The user scrolled up (page or stream) while the run was live. */
  | { type: 'scrolledUp' }
  | { type: 'follow' }
  | { type: 'toggle' }

/** selectedIteration: the iteration shown — the pinned one if it exists, else the newest. */
export function selectedIteration(run: StageRun, pinned: Pinned): number | null {
  if (pinned != null && run.ns.includes(pinned)) return pinned
  return run.ns.length ? run.ns[run.ns.length - 1] : null
}

/** following: the view moves on with the run (only a live run moves on). */
export function isFollowing(run: StageRun, pinned: Pinned): boolean {
  return run.live && pinned == null
}

/**
 * follow folds one user action into the pinned iteration. Landing on the
 * newest iteration of a live run follows it again; stepping back, picking
 * an older one or scrolling up holds the view where it is.
 */
export function follow(run: StageRun, pinned: Pinned, a: FollowAction): Pinned {
  const newest = run.ns.length ? run.ns[run.ns.length - 1] : null
  const current = selectedIteration(run, pinned)
  const land = (n: number): Pinned => (run.live && n === newest ? null : n)
  switch (a.type) {
    case 'select':
      return run.ns.includes(a.n) ? land(a.n) : pinned
    case 'step': {
      const j = run.ns.indexOf(current ?? NaN) + a.by
      return j >= 0 && j < run.ns.length && current != null ? land(run.ns[j]) : pinned
    }
    case 'scrolledUp':
      return run.live && pinned == null && current != null ? current : pinned
    case 'follow':
      return null
    case 'toggle':
      return pinned == null ? (run.live ? current : pinned) : null
  }
}

// ---------- the run form ----------

export type FormEvent = 'started' | 'expand' | 'collapse' | 'startFailed'

/**
 * formCollapsed: the run form folds to one line when a run starts, so the
 * run takes the screen, and stays folded after it ends (the result is what
 * the class looks at) until the user opens it; a run that failed to start
 * opens it again to show why.
 */
export function formCollapsed(collapsed: boolean, ev: FormEvent): boolean {
  switch (ev) {
    case 'started':
    case 'collapse':
      return true
    case 'expand':
    case 'startFailed':
      return false
  }
  return collapsed
}

/** promptSummary: the first non-empty line of a prompt, cut to max characters. */
export function promptSummary(prompt: string, max = 120): string {
  const line = prompt.split('\n').find((l) => l.trim() !== '')?.trim() ?? ''
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line
}
