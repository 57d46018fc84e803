import { describe, expect, it } from 'vitest'
import { readableAnswer } from './answer'

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
