// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { isSafeHref, Markdown } from './Markdown'

afterEach(cleanup)

function md(text: string, caret = false): HTMLElement {
  return render(<Markdown text={text} caret={caret} />).container.firstElementChild as HTMLElement
}

describe('Markdown', () => {
  it('renders headings, lists, emphasis and inline code', () => {
    const el = md('# Plan\n\n- **one**\n- `two`\n\n1. first\n')
    expect(el.querySelector('h4')!.textContent).toBe('Plan')
    expect([...el.querySelectorAll('ul li')].map((li) => li.textContent)).toEqual(['one', 'two'])
    expect(el.querySelector('strong')!.textContent).toBe('one')
    expect(el.querySelector('li code')!.textContent).toBe('two')
    expect(el.querySelector('ol li')!.textContent).toBe('first')
  })

  it('renders a fenced block as highlighted code, never as literal fences', () => {
    const el = md("Here:\n\n```python\ndef f():\n    return 'x'\n```\nDone.")
    const pre = el.querySelector('pre.md-code')!
    expect(pre.getAttribute('data-lang')).toBe('python')
    expect(pre.textContent).toBe("def f():\n    return 'x'")
    expect(pre.querySelector('.tok-keyword')!.textContent).toBe('def')
    expect(pre.querySelector('.tok-string')!.textContent).toBe("'x'")
    expect(el.textContent).not.toContain('```')
    expect(el.textContent).toContain('Done.')
  })

  it('shows an unclosed fence (still streaming) as code, with the caret in it', () => {
    const el = md('Writing:\n```sh\necho hi', true)
    const pre = el.querySelector('pre.md-code')!
    expect(pre.textContent).toBe('echo hi')
    expect(pre.querySelector('.caret')).toBeTruthy()
    expect(el.textContent).not.toContain('```')
  })

  it('puts the caret at the end of streaming prose', () => {
    const el = md('Thinking about **it**', true)
    expect(el.querySelectorAll('.caret')).toHaveLength(1)
    expect(el.querySelector('p')!.lastElementChild!.className).toBe('caret')
    expect(md('Done.').querySelector('.caret')).toBeNull()
  })

  it('leaves code of an unknown language plain', () => {
    const pre = md('```text\nplain <b>words</b>\n```').querySelector('pre.md-code')!
    expect(pre.textContent).toBe('plain <b>words</b>')
    expect(pre.querySelector('span')).toBeNull()
    expect(pre.querySelector('b')).toBeNull()
  })

  it('never renders raw HTML: a script, an image with onerror, inline tags show as text', () => {
    const el = md('<script>window.pwned = 1</script>\n\nSay <b onmouseover="x()">hi</b> <img src=x onerror="alert(1)">\n\n<iframe src="https://evil.example"></iframe>')
    expect(el.querySelector('script, b, img, iframe')).toBeNull()
    expect(el.textContent).toContain('<script>window.pwned = 1</script>')
    expect(el.textContent).toContain('<b onmouseover="x()">hi</b>')
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined()
  })

  it('neutralises javascript: and other unsafe links; web links open in a new window', () => {
    const el = md('[click](javascript:alert(1)) [data](data:text/html,<script>x</script>) [rel](/api/runs) [ok](https://example.org/a) <mailto:a@b.org>')
    const links = [...el.querySelectorAll('a')]
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.org/a', 'mailto:a@b.org'])
    expect(links[0].getAttribute('target')).toBe('_blank')
    expect(links[0].getAttribute('rel')).toContain('noopener')
    expect(el.innerHTML).not.toMatch(/javascript:/i)
    expect(el.textContent).toContain('click')
    expect(isSafeHref(' JAVASCRIPT:alert(1)')).toBe(false)
  })

  it('never fetches an image: its alt text stands in', () => {
    const el = md('![a chart](https://tracker.example/p.png)')
    expect(el.querySelector('img')).toBeNull()
    expect(el.textContent).toBe('[a chart]')
  })
})
