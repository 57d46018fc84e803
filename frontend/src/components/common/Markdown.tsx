// Markdown: a model's prose (explanations, reflections) as formatted text.
// Model output is hostile input, so:
//   - nothing becomes HTML by string: react-markdown builds React elements,
//     and raw HTML in the text is shown as the text it is (htmlAsText);
//   - links go out only to http(s) and mailto addresses, in a new window;
//     any other (javascript:, data:, relative) is plain text;
//   - images are never fetched: their alt text stands in.
// Fenced code is highlighted like the code views (highlight.tsx).

import { memo, type ReactNode } from 'react'
import ReactMarkdown, { defaultUrlTransform, type Components } from 'react-markdown'
import remarkGfm from 'remark-gfm'
import { highlight } from './highlight'

/** Marks where the streaming caret goes (a private-use character no model writes). */
const CARET = '\uE000'

interface Node {
  type: string
  value?: string
  tagName?: string
  properties?: Record<string, unknown>
  children?: Node[]
}

const BLOCK_PARENTS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition'])

/** remark plugin: raw HTML (block or inline) becomes plain text. */
function htmlAsText() {
  const walk = (n: Node) => {
    n.children = n.children?.map((c) => {
      if (c.type !== 'html') {
        walk(c)
        return c
      }
      const text: Node = { type: 'text', value: c.value ?? '' }
      return BLOCK_PARENTS.has(n.type) ? { type: 'paragraph', children: [text] } : text
    })
  }
  return (tree: Node) => walk(tree)
}

/** rehype plugin: the caret marker in prose becomes a blinking caret (code blocks place their own). */
function caretMark() {
  const walk = (n: Node) => {
    if (n.type === 'element' && n.tagName === 'pre') return
    n.children = n.children?.flatMap((c) => {
      if (c.type === 'text' && c.value?.includes(CARET)) {
        const [before, ...rest] = c.value.split(CARET)
        return [
          { type: 'text', value: before },
          { type: 'element', tagName: 'span', properties: { className: ['caret'], ariaHidden: 'true' }, children: [] },
          { type: 'text', value: rest.join('') },
        ]
      }
      walk(c)
      return [c]
    })
  }
  return (tree: Node) => walk(tree)
}

function textOf(n: Node | undefined): string {
  if (!n) return ''
  if (n.type === 'text') return n.value ?? ''
  return (n.children ?? []).map(textOf).join('')
}

/** isSafeHref: only web and mail addresses are links. */
export function isSafeHref(href: string | undefined): href is string {
  return !!href && /^(https?:|mailto:)/i.test(href.trim())
}

const caret = <span className="caret" aria-hidden="true" />

const components: Components = {
  pre({ node }) {
    const code = (node as Node | undefined)?.children?.find((c) => c.type === 'element' && c.tagName === 'code')
    const classes = (code?.properties?.className as string[] | undefined) ?? []
    const lang = classes.find((c) => String(c).startsWith('language-'))?.slice('language-'.length).replaceAll(CARET, '')
    let text = textOf(code)
    const streaming = text.includes(CARET) || classes.some((c) => String(c).includes(CARET))
    text = text.replaceAll(CARET, '').replace(/\n$/, '')
    return (
      <pre className="md-code" data-lang={lang || undefined}>
        <code>
          {highlight(text, lang)}
          {streaming && caret}
        </code>
      </pre>
    )
  },
  a({ href, children }) {
    if (!isSafeHref(href)) return <span className="md-link-off">{children}</span>
    return (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    )
  },
  img({ alt }) {
    const text = (alt ?? '').replaceAll(CARET, '')
    return text ? <span className="md-img">[{text}]</span> : null
  },
  // Headings inside a card (whose title is an h3) stay below it and modest.
  h1: ({ children }) => <h4 className="md-h md-h1">{children}</h4>,
  h2: ({ children }) => <h4 className="md-h md-h2">{children}</h4>,
  h3: ({ children }) => <h5 className="md-h md-h3">{children}</h5>,
  h4: ({ children }) => <h6 className="md-h md-h4">{children}</h6>,
  h5: ({ children }) => <h6 className="md-h md-h4">{children}</h6>,
  h6: ({ children }) => <h6 className="md-h md-h4">{children}</h6>,
  table: ({ children }) => (
    <div className="md-table">
      <table>{children}</table>
    </div>
  ),
}

const remarkPlugins = [remarkGfm, htmlAsText]
const rehypePlugins = [caretMark]

interface Props {
  text: string
  /** Show a blinking caret where the text ends (it is still streaming). */
  caret?: boolean
  className?: string
  testId?: string
}

/** Markdown renders a model's prose safely; fenced code is highlighted, never shown as fences. */
export const Markdown = memo(function Markdown({ text, caret: streaming = false, className, testId }: Props): ReactNode {
  const source = text.replaceAll(CARET, '') + (streaming ? CARET : '')
  return (
    <div className={`md${className ? ` ${className}` : ''}`} data-testid={testId}>
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components} urlTransform={defaultUrlTransform}>
        {source}
      </ReactMarkdown>
    </div>
  )
})
