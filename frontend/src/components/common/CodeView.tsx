import { EditorView } from '@codemirror/view'
import { useEffect, useRef } from 'react'
import { codeState, diffState } from './codemirror'

interface Props {
  code: string
  language?: string
  /** When set, the view shows the changes from this text. */
  original?: string
  label: string
  testId?: string
  /** Wrap long lines instead of scrolling sideways. */
  wrap?: boolean
}

function trimEnd(s: string): string {
  return s.replace(/\n+$/, '')
}

/** CodeView is a read-only CodeMirror editor (or a unified diff when original is set). */
export function CodeView({ code, language, original, label, testId, wrap = false }: Props) {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView | null>(null)

  useEffect(() => {
    const v = new EditorView({ parent: host.current! })
    view.current = v
    return () => {
      v.destroy()
      view.current = null
    }
  }, [])

  useEffect(() => {
    // Code ends with a newline; an empty last line only adds noise on screen.
    const doc = trimEnd(code)
    view.current?.setState(original == null ? codeState(doc, language, wrap) : diffState(trimEnd(original), doc, language, wrap))
  }, [code, language, original, wrap])

  return <div className="code-view" ref={host} role="region" aria-label={label} data-testid={testId} data-mode={original == null ? 'code' : 'diff'} />
}
