// A fake OpenAI-compatible chat-completions server for the end-to-end tests.
// It streams answers slowly (so the UI can be seen mid-stream) in the real
// SSE chunk format:
//   - a reflection request (system prompt "You review …") gets an analysis;
//   - a generation whose last message reports a failure gets working code;
//   - any other generation gets code that divides by zero;
//   - a prompt containing STALL gets a few tokens, then nothing until the
//     client hangs up (to test Stop); one containing HOLD-SECOND does so only
//     from its second iteration on (a live run with two iterations);
//   - a prompt containing SLOW_PRINT gets SLOW_CODE: a program that reads a
//     name from its input, prints a line with it and then sleeps for an hour
//     (its output shows while it runs; the test stops it);
//   - per model, for comparisons: "quick-model" writes working code at once,
//     "never-model" never stops dividing by zero (other models as above);
//   - workspace mode, a prompt containing WORKSPACE_MARKER (the request
//     offers tools): the model calls write_file on calc.py — with a wrong
//     add() on its first attempt, the right one after a failed validation —
//     and, given the tool's result, answers with a short summary;
//   - a prompt containing LONG_PRINT gets LONG_CODE: a twelve-line program
//     that prints 40 lines and RESULT=42, then sleeps for an hour (the
//     projector test: the newest output in view while it runs);
//   - a prompt containing PLOT_MARKER gets a program that draws a
//     matplotlib figure and shows it (plt.show());
//   - a prompt containing SUM_RIGHT gets SUM_CODE (reads two integers, prints
//     their sum), one containing SUM_SMALL gets SUM_SMALL_CODE (right only
//     for small numbers), at every iteration: the class's prompt problem;
//   - the auditor (system prompt "strict code reviewer") approves in JSON.
// Structured output (response_format) is answered with {"explanation","code"},
// otherwise with a ```python fenced block. Tool calls are streamed as the
// Chat Completions API does: delta.tool_calls fragments (id and name first,
// then the arguments piece by piece) and finish_reason "tool_calls".

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export const FAILING_CODE = "print('about to fail')\nprint(1/0)"
export const WORKING_CODE = "greeting = 'hello from loopforge'\nprint(greeting)"
export const REFLECTION = 'The program divides by zero on its last line. Remove the division and print a greeting instead.'

/** A prompt with this marker fails once, then stalls in its second iteration until stopped. */
export const HOLD_SECOND = 'HOLD-SECOND'
/** The explanation that goes with the first, failing answer to HOLD_SECOND: Markdown, with inline code and a list. */
export const PROSE_ANSWER = 'A program that **divides** by `0`:\n\n- prints a line\n- then fails'

/** A prompt with this marker gets SLOW_CODE. */
export const SLOW_PRINT = 'SLOW-PRINT'
/** Prints "counting sheep for NAME" (NAME from its first input line), then waits an hour. */
export const SLOW_CODE = "import sys, time\nname = sys.stdin.readline().strip() or 'nobody'\nprint('counting sheep for ' + name)\ntime.sleep(3600)"
/** A prompt with this marker is answered with PLOT_CODE. */
export const PLOT_MARKER = 'PLOT-FIGURE'

export const SUM_RIGHT = 'SUM-RIGHT'
export const SUM_SMALL = 'SUM-SMALL'
export const SUM_CODE = 'a, b = map(int, input().split())\nprint(a + b)'
export const SUM_SMALL_CODE = 'a, b = map(int, input().split())\nprint(a + b if a < 100 else 0)'
/** A prompt with this marker gets LONG_CODE. */
export const LONG_PRINT = 'LONG-PRINT'
export const LONG_CODE = [
  'import time',
  '',
  '',
  'def square(n):',
  '    return n * n',
  '',
  '',
  'for i in range(1, 41):',
  "    print(f'{i:2d} squared is {square(i)}')",
  "print('RESULT=42')",
  '# the class reads the result while the program still runs',
  'time.sleep(3600)',
].join('\n')
export const PLOT_CODE = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3, 4], [1, 4, 9, 16], marker='o')\nplt.title('squares')\nplt.show()\nprint('plotted')"

export const WORKSPACE_MARKER = 'WORKSPACE-CALC'
/** calc.py as the fake model writes it on its first attempt (still wrong) and after the failed validation. */
export const CALC_WRONG = 'def add(a, b):\n    return a * b\n'
export const CALC_RIGHT = 'def add(a, b):\n    return a + b\n'
export const WS_FIRST_SUMMARY = 'I rewrote add in calc.py.'
export const WS_FIX_SUMMARY = 'Fixed: add now returns the sum.'
export const AUDIT_REASON = 'add returns the sum of its arguments'

interface ChatMessage {
  role: string
  content: string | null | Array<{ type: string; text?: string }>
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

interface ChatRequest {
  model?: string
  stream?: boolean
  response_format?: unknown
  messages?: ChatMessage[]
  tools?: Array<{ type: string; function: { name: string } }>
}

/** A tool call the fake model makes: one function call, its arguments as JSON. */
interface ToolCallAnswer {
  id: string
  name: string
  arguments: string
}

export interface FakeOpenAI {
  url: string
  requests: ChatRequest[]
  /** How many answers to `model` are still streaming (a stalled one stays open until the client hangs up). */
  openStreams(model: string): number
  close(): Promise<void>
}

function text(m: ChatMessage | undefined): string {
  if (!m) return ''
  if (typeof m.content === 'string') return m.content
  return (m.content ?? []).map((p) => p.text ?? '').join('')
}

function program(structured: boolean, code: string, explanation: string): string {
  if (structured) return JSON.stringify({ explanation, code })
  return `${explanation}\n\`\`\`python\n${code}\n\`\`\`\n`
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startFakeOpenAI(opts: { chunkDelayMs?: number; chunkSize?: number } = {}): Promise<FakeOpenAI> {
  const delay = opts.chunkDelayMs ?? 25
  const size = opts.chunkSize ?? 6
  const requests: ChatRequest[] = []
  const open = new Map<ServerResponse, string>() // the answers still streaming, with their model

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }))
      return
    }
    let raw = ''
    for await (const chunk of req) raw += chunk
    let body: ChatRequest
    try {
      body = JSON.parse(raw) as ChatRequest
    } catch {
      res.writeHead(400).end()
      return
    }
    requests.push(body)
    const msgs = body.messages ?? []
    const system = text(msgs.find((m) => m.role === 'system'))
    const last = text(msgs[msgs.length - 1])
    const firstUser = text(msgs.find((m) => m.role === 'user'))
    const structured = body.response_format != null

    let answer: string
    let stall = false
    let call: ToolCallAnswer | null = null
    if (system.includes('strict code reviewer')) {
      answer = JSON.stringify({ approved: true, reasons: [AUDIT_REASON] })
    } else if (firstUser.includes(WORKSPACE_MARKER)) {
      // Workspace mode: the tool exchange of one attempt, then the fix prompt.
      const attempts = msgs.filter((m) => m.role === 'user').length
      const offered = (body.tools ?? []).map((t) => t.function?.name)
      if (msgs[msgs.length - 1]?.role === 'tool') {
        answer = attempts > 1 ? WS_FIX_SUMMARY : WS_FIRST_SUMMARY
      } else if (!offered.includes('write_file')) {
        answer = `No write_file tool was offered (tools: ${offered.join(', ') || 'none'}).`
      } else {
        answer = ''
        call = {
          id: `call_ws_${attempts}`,
          name: 'write_file',
          arguments: JSON.stringify({ path: 'calc.py', content: attempts > 1 ? CALC_RIGHT : CALC_WRONG }),
        }
      }
    } else if (system.includes('You review')) {
      answer = REFLECTION
    } else if (firstUser.includes(HOLD_SECOND) && last.includes('failed')) {
      answer = program(structured, WORKING_CODE, 'Fixing it, slowly')
      stall = true
    } else if (firstUser.includes(HOLD_SECOND)) {
      answer = program(structured, FAILING_CODE, PROSE_ANSWER)
    } else if (firstUser.includes(SLOW_PRINT)) {
      answer = program(structured, SLOW_CODE, 'A program that prints, then takes its time.')
    } else if (firstUser.includes(LONG_PRINT)) {
      answer = program(structured, LONG_CODE, 'Squares of 1 to 40, then the result, then a long wait.')
    } else if (firstUser.includes(SUM_RIGHT)) {
      answer = program(structured, SUM_CODE, 'Adds the two numbers it reads.')
    } else if (firstUser.includes(SUM_SMALL)) {
      answer = program(structured, SUM_SMALL_CODE, 'Adds small numbers.')
    } else if (firstUser.includes(PLOT_MARKER)) {
      answer = program(structured, PLOT_CODE, 'Draws the squares with matplotlib.')
    } else if (firstUser.includes('STALL')) {
      answer = program(structured, 'while True:\n    pass', 'Thinking about it for a very long time')
      stall = true
    } else if (body.model === 'quick-model') {
      answer = program(structured, WORKING_CODE, 'Right the first time.')
    } else if (body.model === 'never-model') {
      answer = program(structured, FAILING_CODE, 'Still dividing.')
    } else if (last.includes('failed')) {
      answer = program(structured, WORKING_CODE, 'Fixed: no more division by zero.')
    } else {
      answer = program(structured, FAILING_CODE, 'A small program that prints and then divides.')
    }

    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
    open.set(res, body.model ?? '')
    res.on('close', () => open.delete(res))
    const send = (v: unknown) => res.write(`data: ${typeof v === 'string' ? v : JSON.stringify(v)}\n\n`)
    const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: body.model ?? 'fake-model' }
    const usage = (n: number) => ({ ...base, choices: [], usage: { prompt_tokens: 120, completion_tokens: n, total_tokens: 120 + n } })
    if (call) {
      const delta = (d: unknown) => send({ ...base, choices: [{ index: 0, delta: d, finish_reason: null }] })
      delta({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] })
      for (let i = 0; i < call.arguments.length; i += size * 3) {
        if (res.destroyed) return
        delta({ tool_calls: [{ index: 0, function: { arguments: call.arguments.slice(i, i + size * 3) } }] })
        await sleep(delay)
      }
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })
      send(usage(Math.ceil(call.arguments.length / 4)))
      send('[DONE]')
      res.end()
      return
    }
    const end = stall ? Math.min(answer.length, size * 4) : answer.length
    for (let i = 0; i < end; i += size) {
      if (res.destroyed) return
      send({ ...base, choices: [{ index: 0, delta: { content: answer.slice(i, i + size) }, finish_reason: null }] })
      await sleep(delay)
    }
    if (stall) return // hold the stream open until the client gives up
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })
    send(usage(Math.ceil(answer.length / 4)))
    send('[DONE]')
    res.end()
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(err))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    openStreams: (model) => [...open.values()].filter((m) => m === model).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open.keys()) r.destroy()
        server.close(() => resolve())
      }),
  }
}
