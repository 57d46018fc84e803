import { Component, type ErrorInfo, type ReactNode } from 'react'
import { strings } from '../../strings'

interface State {
  error: Error | null
}

/** ErrorBoundary: a bug in a view shows a message and a way back, never a blank page. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  state: State = { error: null }

  static getDerivedStateFromError(error: Error): State {
    return { error }
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('loopforge: view crashed', error, info.componentStack)
  }

  render() {
    if (!this.state.error) return this.props.children
    const c = strings.crash
    return (
      <div className="crash" role="alert">
        <h1>{c.title}</h1>
        <p>{c.hint}</p>
        <pre>{this.state.error.message}</pre>
        <button type="button" className="btn btn-primary" onClick={() => location.reload()}>
          {c.reload}
        </button>
      </div>
    )
  }
}
