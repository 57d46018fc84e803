// Structured answers arrive as JSON ({"explanation": …, "code": …}), token by
// token. readableAnswer shows them as prose and code while they stream, by
// decoding the two string fields as far as they have arrived; anything else
// is shown as sent.

export interface Readable {
  explanation: string
  code: string
  structured: boolean
}

/** decodeJSONString decodes a JSON string body from s[i] (after the opening quote), stopping at its end or at the end of s. */
function decodeJSONString(s: string, i: number): { text: string; end: number } {
  let out = ''
  while (i < s.length) {
    const c = s[i]
    if (c === '"') return { text: out, end: i + 1 }
    if (c !== '\\') {
      out += c
      i++
      continue
    }
    if (i + 1 >= s.length) break // an escape cut in half: wait for more
    const e = s[i + 1]
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' }
    if (e in simple) {
      out += simple[e]
      i += 2
    } else if (e === 'u') {
      const hex = s.slice(i + 2, i + 6)
      if (hex.length < 4) break
      out += String.fromCharCode(parseInt(hex, 16))
      i += 6
    } else {
      out += e
      i += 2
    }
  }
  return { text: out, end: s.length }
}

export function readableAnswer(text: string): Readable {
  const t = text.trimStart()
  if (!t.startsWith('{')) return { explanation: text, code: '', structured: false }
  const fields: Record<string, string> = {}
  const re = /"(explanation|code)"\s*:\s*"/g
  let m: RegExpExecArray | null
  while ((m = re.exec(t)) != null) {
    const { text: value, end } = decodeJSONString(t, m.index + m[0].length)
    fields[m[1]] = value
    re.lastIndex = end
  }
  if (!('explanation' in fields) && !('code' in fields)) {
    // The opening of our shape, cut before its first value: nothing to show yet.
    if (/^\{\s*(?:"[A-Za-z_]*"?\s*(?::\s*"?)?)?$/.test(t)) return { explanation: '', code: '', structured: true }
    // JSON, but not our shape (yet): show it as it is.
    return { explanation: text, code: '', structured: false }
  }
  return { explanation: fields.explanation ?? '', code: fields.code ?? '', structured: true }
}

/** fence wraps code in a fenced block longer than any run of backticks inside it; open leaves it unclosed (still streaming). */
export function fence(code: string, language: string, open = false): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((r) => r.length))
  const marks = '`'.repeat(Math.max(3, longest + 1))
  const body = code.replace(/\n+$/, '')
  return `${marks}${language}\n${body}${open ? '' : `\n${marks}`}`
}

/**
 * answerMarkdown turns a model's answer, as far as it has arrived, into one
 * Markdown document, the same for every provider: a structured answer's
 * explanation followed by its code as a fenced block of the run's language;
 * a plain answer (prose with fenced code, as CLI providers write) as sent.
 * While streaming, a fence marker cut in half ("`" or "``" alone on the last
 * line) is held back so it never shows as literal backticks.
 */
export function answerMarkdown(text: string, language: string, streaming = false): string {
  const a = readableAnswer(text)
  if (a.structured) {
    const parts = [a.explanation.trim() ? a.explanation : '']
    if (a.code) parts.push(fence(a.code, language, streaming))
    return parts.filter(Boolean).join('\n\n')
  }
  return streaming ? text.replace(/(^|\n)[ \t]*(`{1,2}|~{1,2})$/, '$1') : text
}
