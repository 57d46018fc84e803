// Static syntax highlighting for code inside prose (a fenced block in a
// model's answer): the same parsers as the code views (codemirror.ts), with
// @lezer/highlight's stable tok-* class names, coloured in style.css from
// the same --syn-* variables. Text only ever becomes React text nodes.

import { classHighlighter, highlightCode } from '@lezer/highlight'
import type { ReactNode } from 'react'
import { knownLanguage } from './codemirror'

/** highlight returns code as spans with tok-* classes, or as plain text when the language is unknown. */
export function highlight(code: string, lang: string | undefined): ReactNode[] {
  const language = knownLanguage(lang)
  if (!language) return [code]
  const out: ReactNode[] = []
  try {
    highlightCode(
      code,
      language.parser.parse(code),
      classHighlighter,
      (text, classes) => out.push(classes ? <span key={out.length} className={classes}>{text}</span> : text),
      () => out.push('\n'),
    )
  } catch {
    return [code]
  }
  return out
}
