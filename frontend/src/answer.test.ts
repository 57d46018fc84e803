import { describe, expect, it } from 'vitest'
import { answerMarkdown, fence, readableAnswer } from './answer'

describe('readableAnswer', () => {
  const full = JSON.stringify({ explanation: 'Prints "hi".', code: "print('hi')\nprint('\\u00e9')" })

  it('decodes a complete structured answer', () => {
    expect(readableAnswer(full)).toEqual({ explanation: 'Prints "hi".', code: "print('hi')\nprint('\\u00e9')", structured: true })
  })

  it('decodes every prefix without showing JSON syntax', () => {
    for (let i = 1; i <= full.length; i++) {
      const r = readableAnswer(full.slice(0, i))
      expect(r.structured).toBe(true)
      expect(r.explanation).not.toContain('"explanation"')
      expect('Prints "hi".'.startsWith(r.explanation)).toBe(true)
    }
    expect(readableAnswer(full.slice(0, full.indexOf('\\n') + 1)).code).toBe("print('hi')")
  })

  it('decodes unicode escapes once complete', () => {
    expect(readableAnswer('{"explanation":"caf\\u00e9","code":""}').explanation).toBe('café')
  })

  it('shows anything else as it was sent', () => {
    const md = 'Here it is.\n```python\nprint(1)\n```'
    expect(readableAnswer(md)).toEqual({ explanation: md, code: '', structured: false })
    expect(readableAnswer('{"answer": 42}').structured).toBe(false)
  })
})

describe('answerMarkdown', () => {
  it('puts a structured answer as prose followed by a fenced block of the run language', () => {
    const full = JSON.stringify({ explanation: 'Prints **hi**.', code: "print('hi')\n" })
    expect(answerMarkdown(full, 'python')).toBe("Prints **hi**.\n\n```python\nprint('hi')\n```")
  })

  it('leaves the fence open while the code streams, and shows nothing of the JSON', () => {
    const partial = '{"explanation":"Hi.","code":"print(1'
    expect(answerMarkdown(partial, 'python', true)).toBe('Hi.\n\n```python\nprint(1')
    expect(answerMarkdown('{"expl', 'python', true)).toBe('')
  })

  it('passes a plain answer (prose with fences, as CLI providers write) through', () => {
    const md = 'Here it is.\n```python\nprint(1)\n```\n'
    expect(answerMarkdown(md, 'python')).toBe(md)
  })

  it('holds back a fence marker cut in half while streaming', () => {
    expect(answerMarkdown('Fixing it\n``', 'python', true)).toBe('Fixing it\n')
    expect(answerMarkdown('Fixing it\n`', 'python', true)).toBe('Fixing it\n')
    expect(answerMarkdown('Use `x`', 'python', true)).toBe('Use `x`')
  })

  it('fences code that holds backticks with a longer fence', () => {
    expect(fence('s = "```"', 'python')).toBe('````python\ns = "```"\n````')
  })
})
