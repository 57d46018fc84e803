import { useLayoutEffect, useRef } from 'react'
import { useStores, useRuns, useSettings } from '../stores'
import { effectiveTheme } from '../stores/settings'
import { strings } from '../strings'
import { AutoIcon, MoonIcon, ProjectorIcon, SunIcon } from './Icons'
import { WorkdirControl } from './WorkdirControl'

export type Tab = 'run' | 'history' | 'stats'

/** Header: brand, navigation, workdir, connection state, theme and projector toggles. */
export function Header({ tab, onTab }: { tab: Tab; onTab(t: Tab): void }) {
  const stores = useStores()
  const theme = useSettings((s) => s.theme)
  const dark = useSettings((s) => effectiveTheme(s) === 'dark')
  const projector = useSettings((s) => s.projector)
  const lang = useSettings((s) => s.lang)
  const t = strings.theme
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
        {(['run', 'history', 'stats'] as Tab[]).map((x) => (
          <button key={x} type="button" className={`nav-item${tab === x ? ' nav-active' : ''}`} aria-current={tab === x ? 'page' : undefined} onClick={() => onTab(x)} data-testid={`nav-${x}`}>
            {strings.nav[x]}
          </button>
        ))}
      </nav>
      <WorkdirControl />
      <div className="topbar-right">
        <ConnectionPill />
        <div className="lang-switch" role="group" aria-label={strings.language.label} data-testid="lang">
          {(['pt', 'en'] as const).map((l) => (
            <button
              key={l}
              type="button"
              className={`lang-btn${lang === l ? ' lang-on' : ''}`}
              aria-pressed={lang === l}
              title={strings.language[l]}
              lang={l}
              onClick={() => stores.settings.getState().setLang(l)}
              data-testid={`lang-${l}`}
            >
              {l}
            </button>
          ))}
        </div>
        <button
          type="button"
          className="icon-btn"
          onClick={() => stores.settings.getState().cycleTheme()}
          title={`${t.label}: ${t[theme]}`}
          aria-label={`${t.label}: ${t[theme]}`}
          data-testid="theme"
          data-theme={theme}
        >
          {theme === 'system' ? <AutoIcon /> : dark ? <MoonIcon /> : <SunIcon />}
        </button>
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
  if (c.status === 'open' || c.status === 'idle') return null
  const text =
    c.status === 'connecting' ? strings.connection.connecting : strings.connection.reconnecting(c.attempt, Math.round(c.retryInMs / 1000))
  return (
    <span className={`conn conn-${c.status}`} role="status" title={c.status === 'reconnecting' ? c.reason : undefined} data-testid="connection">
      <span className="conn-dot" aria-hidden="true" />
      {text}
    </span>
  )
}
