import { useEffect, useState } from 'react'
import { ErrorBoundary } from './components/ErrorBoundary'
import { Header, type Tab } from './components/Header'
import { HistoryView } from './components/HistoryView'
import { StatsView } from './components/StatsView'
import { RunPanel } from './components/RunPanel'
import { StoresProvider, useSettings, useStores, type Stores } from './stores'
import { effectiveTheme } from './stores/settings'
import { shortcut } from './stage'
import { setLanguage } from './strings'

export function App({ stores }: { stores: Stores }) {
  return (
    <ErrorBoundary>
      <StoresProvider stores={stores}>
        <Shell />
      </StoresProvider>
    </ErrorBoundary>
  )
}

function Shell() {
  const stores = useStores()
  const [tab, setTab] = useState<Tab>('run')
  const theme = useSettings((s) => effectiveTheme(s))
  const projector = useSettings((s) => s.projector)
  const lang = useSettings((s) => s.lang)
  // Every component reads strings while rendering: switch the table first,
  // then re-mount the tree under a new key so all of it renders again.
  setLanguage(lang)

  useEffect(() => {
    void stores.providers.getState().load()
    void stores.workdir.getState().load()
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

  useEffect(() => {
    const mq = globalThis.matchMedia?.('(prefers-color-scheme: dark)')
    if (!mq) return
    const update = () => stores.settings.getState().setSystemDark(mq.matches)
    update()
    mq.addEventListener?.('change', update)
    return () => mq.removeEventListener?.('change', update)
  }, [stores])

  return (
    <div className="app" key={lang}>
      <Header tab={tab} onTab={setTab} />
      <main className="main">
        <ErrorBoundary>
          {tab === 'run' ? (
            <RunPanel />
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
            />
          )}
        </ErrorBoundary>
      </main>
    </div>
  )
}
