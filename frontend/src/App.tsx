import { useEffect, useState } from 'react'
import { ClassTab } from './components/class/ClassTab'
import { JoinPage } from './components/class/JoinPage'
import { ProjectorApp } from './components/class/Stage'
import { SignedOut, Waiting } from './components/class/Gate'
import { StudentApp } from './components/class/StudentApp'
import { ErrorBoundary } from './components/common/ErrorBoundary'
import { Header, type Tab } from './components/common/Header'
import { HistoryView } from './components/history/HistoryView'
import { StatsView } from './components/history/StatsView'
import { RunTab } from './components/run/FirstRun'
import { route } from './classroom'
import { guardDrops } from './drop'
import { StoresProvider, useClassroom, useSettings, useStores, type Stores } from './stores'
import { effectiveTheme } from './stores/settings'
import { shortcut } from './stage'
import { setLanguage } from './strings'

export function App({ stores }: { stores: Stores }) {
  return (
    <ErrorBoundary>
      <StoresProvider stores={stores}>
        <Root />
      </StoresProvider>
    </ErrorBoundary>
  )
}

/**
 * Root asks the server who the caller is (Me) and shows that role's face:
 * the join page (/join), a student's app, the projector window (#/stage)
 * or the instructor's app (with the Class tab in class mode).
 */
function Root() {
  const stores = useStores()
  const [where, setWhere] = useState(() => route(globalThis.location))
  const status = useClassroom((c) => c.status)
  const role = useClassroom((c) => c.me?.role)
  const inClass = useClassroom((c) => c.class != null)
  const theme = useSettings((s) => effectiveTheme(s))
  const projector = useSettings((s) => s.projector) || where === 'stage'
  const lang = useSettings((s) => s.lang)
  // Every component reads strings while rendering: switch the table first,
  // then re-mount the tree under a new key so all of it renders again.
  setLanguage(lang)

  useEffect(() => {
    void stores.classroom.getState().loadMe()
    const onHash = () => setWhere(route(globalThis.location))
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, [stores])

  useEffect(() => {
    const root = document.documentElement
    root.dataset.theme = theme
    root.dataset.projector = projector ? 'on' : 'off'
    root.lang = lang === 'pt' ? 'pt-BR' : 'en'
  }, [theme, projector, lang])

  // P toggles projector mode (not while typing).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (shortcut(e) !== 'projector') return
      const settings = stores.settings.getState()
      settings.setProjector(!settings.projector)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [stores])

  // A folder dropped on the page must not replace the app. The web face says
  // what a browser allows; the desktop window takes drops natively (app.go),
  // so there the guard only stands by.
  useEffect(() => {
    const desktop = stores.api.face === 'desktop'
    return guardDrops(window, (name) => {
      if (!desktop) stores.workdir.getState().noteDrop(name)
    })
  }, [stores])

  useEffect(() => {
    const mq = globalThis.matchMedia?.('(prefers-color-scheme: dark)')
    if (!mq) return
    const update = () => stores.settings.getState().setSystemDark(mq.matches)
    update()
    mq.addEventListener?.('change', update)
    return () => mq.removeEventListener?.('change', update)
  }, [stores])

  const joined = () => {
    // The student app lives at the root address: a reload keeps it (the cookie says who).
    globalThis.history?.replaceState(null, '', '/')
    setWhere('app')
  }

  let page
  if (where === 'join' && role !== 'student') {
    page = status === 'loading' ? <Waiting /> : <JoinPage onJoined={joined} />
  } else if (status !== 'ready') {
    page = status === 'loading' ? <Waiting /> : <SignedOut />
  } else if (role === 'student') {
    page = <StudentApp />
  } else if (where === 'stage' && inClass) {
    page = <ProjectorApp />
  } else {
    page = <Shell classMode={inClass} />
  }
  return (
    <div className="root" key={lang}>
      {page}
    </div>
  )
}

/** Shell: the instructor's app — Run, History, Stats, and in class mode the Class tab first. */
function Shell({ classMode }: { classMode: boolean }) {
  const stores = useStores()
  const [tab, setTab] = useState<Tab>(classMode ? 'class' : 'run')

  useEffect(() => {
    void stores.providers.getState().load()
    void stores.workdir.getState().load()
  }, [stores])

  return (
    <div className="app">
      {/* The Class tab has no use for the working folder: its place goes to the tabs. */}
      <Header tab={tab} onTab={setTab} tabs={classMode ? ['class', 'run', 'history', 'stats'] : undefined} workdir={tab !== 'class'} />
      <main className="main">
        <ErrorBoundary>
          {tab === 'class' ? (
            <ClassTab />
          ) : tab === 'run' ? (
            <RunTab />
          ) : tab === 'stats' ? (
            <StatsView />
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
        </ErrorBoundary>
      </main>
    </div>
  )
}
