import { describe, expect, it } from 'vitest'
import { finished, sessionDetail, twoIterationRun } from '../test/fakeApi'
import { applyEvent, fromStored, isFinished, newRun, type RunState } from './runModel'

function fold(events: Parameters<typeof applyEvent>[1][], run: RunState = newRun({ runId: 'run-1' })): RunState {
  return events.reduce(applyEvent, run)
}

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
    expect(e).toMatchObject({ status: 'error', error: 'openai: 401 Incorrect API key provided' })
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
    expect(r.streamError).toBe('run not found: r')
  })

  it('ignores event kinds it does not know', () => {
    const r = newRun({ runId: 'r' })
    const next = applyEvent(r, { type: 'audit', run_id: 'r', seq: 1, ts: '', payload: {} } as never)
    expect(next.iterations).toEqual([])
    expect(next.lastSeq).toBe(1)
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
  })
})
