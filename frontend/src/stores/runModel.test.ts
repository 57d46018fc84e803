import { describe, expect, it } from 'vitest'
import { finished, printingRun, sessionDetail, twoIterationRun, workspaceRun, workspaceSessionDetail, WS_DIFF } from '../test/fakeApi'
import * as ev from '../api/gen/event'
import { applyEvent, fromStored, isFinished, newRun, type RunState } from './runModel'

function fold(events: Parameters<typeof applyEvent>[1][], run: RunState = newRun({ runId: 'run-1' })): RunState {
  return events.reduce(applyEvent, run)
}

describe('isFinished', () => {
  it('holds for every generated run status but running, and not before the first event', () => {
    const ends = [ev.RunStatusSuccess, ev.RunStatusLimitReached, ev.RunStatusError, ev.RunStatusCancelled, ev.RunStatusInterrupted] as const
    for (const status of ends) expect(isFinished({ status })).toBe(true)
    expect(isFinished({ status: ev.RunStatusRunning })).toBe(false)
    expect(isFinished({ status: 'starting' })).toBe(false)
  })
})

describe('applyEvent', () => {
  it('builds a two-iteration run from its events', () => {
    const r = fold(twoIterationRun())
    expect(r.status).toBe('success')
    expect(isFinished(r)).toBe(true)
    expect(r.provider).toBe('fake')
    expect(r.maxIterations).toBe(5)
    expect(r.iterations.map((i) => [i.n, i.phase])).toEqual([
      [1, 'error'],
      [2, 'success'],
    ])
    const [one, two] = r.iterations
    expect(one.generation).toBe('Here it is.')
    expect(one.code).toBe('print(1/0)\n')
    expect(one.exec).toMatchObject({ status: 'error', exitCode: 1, isolation: 'basic', durationMs: 21 })
    expect(one.exec?.stderr).toContain('ZeroDivisionError')
    expect(one.reflection).toBe('It divides by zero.')
    expect(one.reflecting).toBe(false)
    expect(two.exec?.stdout).toBe('hi\n')
    expect(r.finalCode).toBe("print('hi')\n")
    expect(r.inputTokens).toBe(300)
    expect(r.outputTokens).toBe(60)
    expect(r.durationMs).toBe(2500)
    expect(r.lastSeq).toBe(18)
  })

  it('streams tokens: generation and reflection separately, reflection after the failed iteration_done', () => {
    const ev = twoIterationRun()
    let r = fold(ev.slice(0, 3))
    expect(r.status).toBe('running')
    expect(r.iterations[0]).toMatchObject({ phase: 'generating', generation: 'Here ' })
    r = fold(ev.slice(3, 9), r) // … iteration_done(error), first reflect token
    expect(r.iterations[0]).toMatchObject({ phase: 'error', reflecting: true, reflection: 'It divides ' })
    r = fold(ev.slice(9, 11), r)
    expect(r.iterations[0]).toMatchObject({ phase: 'error', reflecting: false, reflection: 'It divides by zero.' })
  })

  it('counts tokens as generations arrive, before the run finishes', () => {
    const r = fold(twoIterationRun().slice(0, 5))
    expect(r.inputTokens).toBe(100)
    expect(r.outputTokens).toBe(20)
  })

  it("folds the running code's output per stream, then exec_finished's output", () => {
    const ev = printingRun('run-1', true)
    let r = fold(ev.slice(0, 7))
    expect(r.stdin).toBe('Ada\n')
    expect(r.iterations[0].phase).toBe('executing')
    expect(r.iterations[0].exec).toBeUndefined()
    expect(r.iterations[0].output).toEqual({ stdout: 'tick 1\ntick 2\n', stderr: 'warning\n', stdoutCapped: true, stderrCapped: false })
    r = fold(ev.slice(7), r)
    expect(r.status).toBe('cancelled')
    expect(r.iterations[0].exec).toMatchObject({ status: 'killed', stdout: 'tick 1\ntick 2\ntick 3\n' })
  })

  it('ignores an event it has already seen', () => {
    const ev = twoIterationRun()
    const once = fold(ev.slice(0, 4))
    const twice = fold([ev[2], ev[3]], once)
    expect(twice).toBe(once)
    expect(twice.iterations[0].generation).toBe('Here it is.')
  })

  it('records a cancelled run and the provider error of a failed one', () => {
    let r = fold(twoIterationRun().slice(0, 3))
    r = { ...r, cancelling: true }
    r = applyEvent(r, finished('run-1', 4, 'cancelled', 'cancelled by the user'))
    expect(r).toMatchObject({ status: 'cancelled', cancelling: false, error: 'cancelled by the user' })

    const e = applyEvent(newRun({ runId: 'x' }), finished('x', 1, 'error', 'openai: 401 Incorrect API key provided'))
    expect(e).toMatchObject({ status: 'error', error: 'openai: 401 Incorrect API key provided', errorKind: '' })

    const g = applyEvent(newRun({ runId: 'g' }), finished('g', 1, 'error', 'the repository\'s git control files changed', 'workspace_guard'))
    expect(g).toMatchObject({ status: 'error', errorKind: 'workspace_guard' })
  })

  it('keeps a format error and a log notice', () => {
    let r = newRun({ runId: 'r' })
    r = applyEvent(r, {
      type: 'generated',
      run_id: 'r',
      seq: 1,
      ts: '',
      payload: { iteration: 1, content: 'no code here', code: '', language: 'python', format_error: 'no ```python block', duration_ms: 5 },
    })
    r = applyEvent(r, { type: 'log', run_id: 'r', seq: 2, ts: '', payload: { level: 'warn', message: 'retrying after a 429' } })
    expect(r.iterations[0].formatError).toBe('no ```python block')
    expect(r.logs).toEqual([{ level: 'warn', message: 'retrying after a 429' }])
  })

  it('notes a refused subscription', () => {
    const r = applyEvent(newRun({ runId: 'r' }), { type: 'error', run_id: 'r', payload: { message: 'run not found: r' } })
    expect(r.streamError).toMatchObject({ message: 'run not found: r' })
  })

  it('ignores event kinds it does not know', () => {
    const r = newRun({ runId: 'r' })
    const next = applyEvent(r, { type: 'audit', run_id: 'r', seq: 1, ts: '', payload: {} } as never)
    expect(next.iterations).toEqual([])
    expect(next.lastSeq).toBe(1)
  })
})

describe('applyEvent in workspace mode', () => {
  it('records the mode, project, checks, auditor and network opt-in from run_started', () => {
    const r = fold(workspaceRun('run-1', { allowNetwork: true }).slice(0, 1))
    expect(r).toMatchObject({ mode: 'workspace', workdir: '/home/ana/calc', validate: ['python3 check.py'], auditor: 'fake', allowNetwork: true })
    const script = fold(twoIterationRun().slice(0, 1))
    expect(script).toMatchObject({ mode: 'script', allowNetwork: false, validate: [], auditor: '' })
  })

  it('collects tool calls, validations and the audit per iteration, and the git outcome per run', () => {
    const r = fold(workspaceRun())
    expect(r.status).toBe('success')
    const [one, two] = r.iterations
    expect(one.phase).toBe('error')
    expect(one.tools.map((t) => [t.name, t.ok])).toEqual([
      ['read_file', false],
      ['write_file', true],
    ])
    expect(one.tools[1]).toMatchObject({ id: 'call_2', output: 'wrote calc.py (33 bytes)', durationMs: 2 })
    expect(JSON.parse(one.tools[1].input)).toEqual({ path: 'calc.py', content: 'def add(a, b):\n    return a * b\n' })
    expect(one.validations).toEqual([
      { command: 'python3 check.py', exitCode: 1, passed: false, timedOut: false, stdout: '', stderr: 'AssertionError: add(2, 3) returned 6\n', truncated: false, durationMs: 45 },
    ])
    expect(one.audit).toBeUndefined()
    expect(two.phase).toBe('success')
    expect(two.validations.map((v) => v.passed)).toEqual([true])
    expect(two.audit).toEqual({ approved: true, reasons: ['add now returns the sum', 'the tests are unchanged'] })
    expect(two.auditing).toBe(false)
    // Audit tokens are not the model's words.
    expect(two.generation).toBe('Fixed: add adds.')
    expect(r.git).toEqual({
      branch: 'loopforge/fix-add-in-calc-py-1a2b3c4d',
      commit: '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432',
      message: expect.stringContaining('loopforge: Fix add in calc.py'),
      uncommitted: false,
      metadata: '.loopforge/runs/20261121T100000Z.json',
    })
    expect(r.finalCode).toBe(WS_DIFF)
  })

  it('goes generating → validating → done, and shows the auditor at work', () => {
    const ev = workspaceRun()
    const at = (type: string, n = 1) => {
      let seen = 0
      return ev.findIndex((e) => e.type === type && ++seen === n) + 1
    }
    let r = fold(ev.slice(0, at('tool_called')))
    expect(r.iterations[0]).toMatchObject({ phase: 'generating', tools: [{ name: 'read_file' }] })
    r = fold(ev.slice(0, at('generated')))
    expect(r.iterations[0].phase).toBe('validating')
    r = fold(ev.slice(0, at('validated')))
    expect(r.iterations[0]).toMatchObject({ phase: 'validating', validations: [{ passed: false }] })
    r = fold(ev.slice(0, at('iteration_done')))
    expect(r.iterations[0].phase).toBe('error')
    r = fold(ev.slice(0, at('token', 2))) // the auditor's first token
    expect(r.iterations[1]).toMatchObject({ phase: 'validating', auditing: true, generation: 'Fixed: add adds.' })
    r = fold(ev.slice(0, at('audited')))
    expect(r.iterations[1]).toMatchObject({ auditing: false, audit: { approved: true } })
  })

  it('a run without validation commands is not "validating" after its answer', () => {
    const ev = workspaceRun()
    const started = { ...ev[0], payload: { ...ev[0].payload, validate: undefined } } as typeof ev[0]
    const r = fold([started, ev[2], { ...ev[6] }])
    expect(r.validate).toEqual([])
    expect(r.iterations[0].phase).toBe('generating')
  })

  it('records changes left uncommitted, a rejected audit and a worktree', () => {
    const base = workspaceRun().slice(0, 4)
    let seq = base.length
    const ev = (type: string, payload: unknown) => ({ type, run_id: 'run-1', seq: ++seq, ts: '', payload }) as never
    const r = fold([
      ...base,
      ev('git', { action: 'worktree', path: '/tmp/lf-worktrees/fake', branch: 'loopforge/cmp-fake' }),
      ev('audited', { iteration: 1, approved: false, reasons: ['it deletes the tests'] }),
      ev('iteration_done', { iteration: 1, status: 'error', summary: 'auditor rejected: it deletes the tests' }),
      ev('git', { action: 'uncommitted', branch: 'loopforge/cmp-fake', message: 'no commit: the last attempt…' }),
      finished('run-1', ++seq, 'limit_reached'),
    ])
    expect(r.status).toBe('limit_reached')
    expect(r.iterations[0].audit).toEqual({ approved: false, reasons: ['it deletes the tests'] })
    expect(r.git).toMatchObject({ branch: 'loopforge/cmp-fake', worktree: '/tmp/lf-worktrees/fake', uncommitted: true })
    expect(r.git.commit).toBeUndefined()
  })
})

describe('pictures', () => {
  it('keeps the pictures exec_finished names, and what was left out', () => {
    const events = twoIterationRun().map((e) =>
      e.type === 'exec_finished' && e.payload.iteration === 2
        ? { ...e, payload: { ...e.payload, images: [{ name: 'figure-1.png', mime: 'image/png', size: 900, width: 640, height: 480 }], images_skipped: ['fake.png: not a PNG'] } }
        : e,
    )
    const [one, two] = fold(events).iterations
    expect(one.exec).toMatchObject({ images: [], imagesSkipped: [] })
    expect(two.exec?.images).toEqual([{ name: 'figure-1.png', mime: 'image/png', size: 900, width: 640, height: 480 }])
    expect(two.exec?.imagesSkipped).toEqual(['fake.png: not a PNG'])
  })

  it('gives each stored iteration its own pictures', () => {
    const d = sessionDetail()
    const r = fromStored(d.runs![0], d.iterations!['run-old'], d.prompt, 'script', d.images['run-old'])
    expect(r.iterations[0].exec?.images).toEqual([])
    expect(r.iterations[1].exec?.images).toEqual([{ name: 'figure-1.png', mime: 'image/png', size: 120, width: 64, height: 48 }])
  })
})

describe('fromStored', () => {
  it('rebuilds a finished run from the history', () => {
    const d = sessionDetail()
    const r = fromStored(d.runs![0], d.iterations!['run-old'], d.prompt)
    expect(r).toMatchObject({ runId: 'run-old', status: 'success', fromHistory: true, finalCode: "print('hi')\n", inputTokens: 300, durationMs: 3000 })
    expect(r.iterations.map((i) => i.phase)).toEqual(['error', 'success'])
    expect(r.iterations[0]).toMatchObject({ generation: 'Here it is.', reflection: 'It divides by zero.', code: 'print(1/0)\n' })
    expect(r.iterations[0].exec).toMatchObject({ status: 'error', exitCode: 1, isolation: 'basic' })
    expect(r.mode).toBe('script')
  })

  it('marks a stored workspace run as such (its details come from its events)', () => {
    const d = workspaceSessionDetail()
    const r = fromStored(d.runs![0], d.iterations!['run-ws'], d.prompt, 'workspace')
    expect(r).toMatchObject({ mode: 'workspace', finalCode: WS_DIFF })
    expect(r.iterations.map((i) => [i.phase, i.exec, i.tools, i.validations])).toEqual([
      ['error', undefined, [], []],
      ['success', undefined, [], []],
    ])
  })
})
