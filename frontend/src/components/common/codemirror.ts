// CodeMirror 6 set-up for read-only code and diffs. Colours come from CSS
// variables (style.css), so the editors follow the light/dark theme without
// being rebuilt.

import { python, pythonLanguage } from '@codemirror/lang-python'
import { HighlightStyle, StreamLanguage, syntaxHighlighting, type Language, type LanguageSupport } from '@codemirror/language'
import { diff } from '@codemirror/legacy-modes/mode/diff'
import { javascript } from '@codemirror/legacy-modes/mode/javascript'
import { shell } from '@codemirror/legacy-modes/mode/shell'
import { unifiedMergeView } from '@codemirror/merge'
import { EditorState, type Extension } from '@codemirror/state'
import { EditorView, lineNumbers } from '@codemirror/view'
import { tags as t } from '@lezer/highlight'

const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword], color: 'var(--syn-keyword)', fontWeight: '600' },
  { tag: [t.string, t.special(t.string), t.regexp], color: 'var(--syn-string)' },
  { tag: [t.number, t.bool, t.null, t.atom], color: 'var(--syn-number)' },
  { tag: [t.comment, t.lineComment, t.blockComment, t.docComment], color: 'var(--syn-comment)', fontStyle: 'italic' },
  { tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.function(t.variableName))], color: 'var(--syn-function)' },
  { tag: [t.className, t.definition(t.className), t.typeName], color: 'var(--syn-type)' },
  { tag: [t.standard(t.variableName), t.self], color: 'var(--syn-builtin)' },
  { tag: [t.operator, t.punctuation, t.bracket], color: 'var(--syn-punct)' },
  { tag: t.invalid, color: 'var(--danger)' },
  // unified diffs (a workspace run's changes)
  { tag: t.inserted, color: 'var(--ok)' },
  { tag: t.deleted, color: 'var(--danger)' },
  { tag: t.meta, color: 'var(--info)', fontWeight: '600' },
])

const theme = EditorView.theme({
  '&': {
    color: 'var(--code-fg)',
    backgroundColor: 'var(--code-bg)',
    fontSize: 'var(--code-size)',
    borderRadius: '10px',
  },
  '.cm-scroller': {
    fontFamily: 'var(--mono)',
    lineHeight: '1.55',
  },
  '.cm-content': { padding: '10px 0', caretColor: 'transparent' },
  '.cm-gutters': {
    backgroundColor: 'var(--code-bg)',
    color: 'var(--code-gutter)',
    border: 'none',
    borderRadius: '10px 0 0 10px',
  },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 10px 0 14px' },
  '&.cm-focused': { outline: '2px solid var(--focus)' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground, ::selection': { backgroundColor: 'var(--code-selection) !important' },
  '.cm-changedLine': { backgroundColor: 'var(--diff-add-bg) !important' },
  '.cm-changedText': { background: 'var(--diff-add-strong) !important' },
  '.cm-insertedLine': { backgroundColor: 'var(--diff-add-bg) !important' },
  '.cm-deletedChunk': { backgroundColor: 'var(--diff-del-bg) !important' },
  '.cm-deletedChunk .cm-deletedText, .cm-deletedChunk del': { background: 'var(--diff-del-strong) !important', textDecoration: 'none' },
})

const streamLanguages = new Map<string, Language>()

function stream(name: string, parser: Parameters<typeof StreamLanguage.define>[0]): Language {
  let l = streamLanguages.get(name)
  if (!l) streamLanguages.set(name, (l = StreamLanguage.define(parser)))
  return l
}

/**
 * knownLanguage: the CodeMirror language for a fence or run language
 * ("python", "sh", "node", "diff" and their usual aliases), or null.
 */
export function knownLanguage(lang: string | undefined): Language | null {
  switch ((lang ?? '').trim().toLowerCase()) {
    case 'python':
    case 'py':
    case 'python3':
      return pythonLanguage
    case 'sh':
    case 'bash':
    case 'shell':
    case 'zsh':
    case 'console':
      return stream('shell', shell)
    case 'javascript':
    case 'js':
    case 'node':
    case 'mjs':
    case 'cjs':
      return stream('javascript', javascript)
    case 'diff':
    case 'patch':
      return stream('diff', diff)
    default:
      return null
  }
}

function language(lang: string | undefined): LanguageSupport | Extension {
  const known = knownLanguage(lang)
  // A run's code is one of the known languages; anything else reads best as Python.
  return known == null || known === pythonLanguage ? python() : known
}

export function readOnlyExtensions(lang: string | undefined, wrap = false): Extension[] {
  return [
    ...(wrap ? [EditorView.lineWrapping] : []),
    EditorState.readOnly.of(true),
    EditorView.editable.of(false),
    EditorView.contentAttributes.of({ 'aria-readonly': 'true' }),
    lineNumbers(),
    theme,
    syntaxHighlighting(highlight),
    language(lang),
  ]
}

/** codeState builds the state of a read-only code view. */
export function codeState(doc: string, lang: string | undefined, wrap = false): EditorState {
  return EditorState.create({ doc, extensions: readOnlyExtensions(lang, wrap) })
}

/** diffState shows doc with the changes from original inline (deleted lines in red). */
export function diffState(original: string, doc: string, lang: string | undefined, wrap = false): EditorState {
  return EditorState.create({
    doc,
    extensions: [
      ...readOnlyExtensions(lang, wrap),
      unifiedMergeView({ original, mergeControls: false, highlightChanges: true, gutter: true, syntaxHighlightDeletions: true }),
    ],
  })
}
