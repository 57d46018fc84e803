import { MergeView } from '@codemirror/merge'
import { useEffect, useRef } from 'react'
import { readOnlyExtensions } from '../common/codemirror'

interface Props {
  left: string
  right: string
  language?: string
  label: string
}

/** ScriptDiff shows two scripts side by side with their differences (CodeMirror merge view). */
export function ScriptDiff({ left, right, language, label }: Props) {
  const host = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const trim = (s: string) => s.replace(/\n+$/, '')
    const ext = readOnlyExtensions(language, true)
    const v = new MergeView({
      a: { doc: trim(left), extensions: ext },
      b: { doc: trim(right), extensions: ext },
      parent: host.current!,
      highlightChanges: true,
      gutter: true,
    })
    return () => v.destroy()
  }, [left, right, language])
  return <div className="script-diff code-view" ref={host} role="region" aria-label={label} data-testid="script-diff" />
}
