import { useEffect, useState } from 'react'
import type { Api } from './api'

type VersionState = { kind: 'loading' } | { kind: 'ok'; version: string } | { kind: 'error'; message: string }

export function App({ api }: { api: Api }) {
  const [version, setVersion] = useState<VersionState>({ kind: 'loading' })

  useEffect(() => {
    let live = true
    api.version().then(
      (v) => live && setVersion({ kind: 'ok', version: v }),
      (err: unknown) => live && setVersion({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    )
    return () => {
      live = false
    }
  }, [api])

  return (
    <main className="placeholder">
      <header>
        <h1>
          loop<span className="accent">forge</span>
        </h1>
        <p className="tagline">Watch AI models write, run and fix code</p>
      </header>
      <p className="version" data-testid="version">
        {version.kind === 'loading' && 'version …'}
        {version.kind === 'ok' && `version ${version.version}`}
        {version.kind === 'error' && <span title={version.message}>version unavailable</span>}
      </p>
      <p className="note">This is a placeholder: the full interface is coming soon.</p>
    </main>
  )
}
