import { useLayoutEffect, useRef, type ReactNode } from 'react'
import { useStores, useRuns, useSettings } from '../../stores'
import { strings } from '../../strings'
import { ProjectorIcon } from './Icons'
import { LanguageSwitch, ThemeButton } from './LookSwitches'
import { WorkdirControl } from '../workspace/WorkdirControl'

export type Tab = 'class' | 'run' | 'history' | 'stats'

interface HeaderProps {
  tab: Tab
  onTab(t: Tab): void
  /** The tabs offered (a student has no Stats; the instructor of a class has Class first). */
  tabs?: Tab[]
  /** The working directory control (not for a student: the server's folders are not theirs). */
  workdir?: boolean
  /** Shown after the navigation, e.g. who a student is. */
  extra?: ReactNode
}

/** Header: brand, navigation, workdir, connection state, theme and projector toggles. */
export function Header({ tab, onTab, tabs = ['run', 'history', 'stats'], workdir = true, extra }: HeaderProps) {
  const stores = useStores()
  const projector = useSettings((s) => s.projector)
  const bar = useRef<HTMLElement>(null)

  // What sticks below the header (the stage bar) sits at its height, which projector mode changes.
  useLayoutEffect(() => {
    const el = bar.current
    if (!el) return
    const root = document.documentElement
    const set = () => root.style.setProperty('--topbar-h', `${el.offsetHeight}px`)
    set()
    const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(set)
    ro?.observe(el)
    return () => ro?.disconnect()
  }, [])

  return (
    <header className="topbar" ref={bar} data-sticky="">
      <div className="brand" aria-label="loopforge">
        <span className="brand-mark" aria-hidden="true">
          ⟳
        </span>
        <span>
          loop<span className="accent">forge</span>
        </span>
      </div>
      <nav className="nav" aria-label={strings.nav.run}>
        {tabs.map((x) => (
          <button key={x} type="button" className={`nav-item${tab === x ? ' nav-active' : ''}`} aria-current={tab === x ? 'page' : undefined} onClick={() => onTab(x)} data-testid={`nav-${x}`}>
            {strings.nav[x]}
          </button>
        ))}
      </nav>
      {workdir && <WorkdirControl />}
      {extra}
      <div className="topbar-right">
        <ConnectionPill />
        <LanguageSwitch />
        <ThemeButton />
        <button
          type="button"
          className={`icon-btn${projector ? ' icon-btn-on' : ''}`}
          onClick={() => stores.settings.getState().setProjector(!projector)}
          aria-pressed={projector}
          title={`${projector ? strings.projector.on : strings.projector.off} (P)`}
          aria-label={strings.projector.off}
          data-testid="projector"
        >
          <ProjectorIcon />
        </button>
      </div>
    </header>
  )
}

function ConnectionPill() {
  const c = useRuns((s) => s.connection)
  // refused: the page that was refused says why (a removed student's page shows the removal).
  if (c.status === 'open' || c.status === 'idle' || c.status === 'refused') return null
  const text =
    c.status === 'connecting' ? strings.connection.connecting : strings.connection.reconnecting(c.attempt, Math.round(c.retryInMs / 1000))
  return (
    <span className={`conn conn-${c.status}`} role="status" title={c.status === 'reconnecting' ? c.reason : undefined} data-testid="connection">
      <span className="conn-dot" aria-hidden="true" />
      {text}
    </span>
  )
}
