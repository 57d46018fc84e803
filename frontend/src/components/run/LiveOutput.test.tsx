// @vitest-environment happy-dom
// The execution panel while the code runs: what it printed so far, per
// stream, before exec_finished; the program's input; and after Stop, the
// output it printed stays.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { RunEvent } from '../../api'
import type { ExecResult, IterationView } from '../../stores/runModel'
import { setLanguage } from '../../strings'
import { finished, printingRun, type FakeApi } from '../../test/fakeApi'
import { renderApp } from '../../test/render'
import { ExecPanel } from './ExecPanel'

afterEach(cleanup)

function emit(api: FakeApi, events: RunEvent[]) {
  act(() => events.forEach((e) => api.events.emit(e)))
}

async function started(stdin = '') {
  const r = renderApp()
  await screen.findByTestId('provider-fake')
  fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'count slowly' } })
  if (stdin) fireEvent.change(screen.getByTestId('stdin'), { target: { value: stdin } })
  fireEvent.click(screen.getByTestId('run'))
  await screen.findByTestId('run-view')
  return r
}

describe('program output live', () => {
  it('shows what the program printed while it runs, and keeps it after Stop', async () => {
    const { api } = await started('Ada\n')
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ stdin: 'Ada\n' })
    const evs = printingRun('run-1', true)
    emit(api, evs.slice(0, 5))
    const exec = screen.getByTestId('exec')
    expect(within(exec).getByTestId('stdout').textContent).toBe('tick 1\n')
    expect(within(exec).queryByTestId('exec-status')).toBeNull()
    expect(exec.textContent).toContain('Running the code…')
    expect(exec.textContent).not.toContain('Not run yet.')
    expect(within(exec).getByTestId('exec-stdin').textContent).toContain('Ada')

    emit(api, evs.slice(5, 7))
    expect(within(exec).getByTestId('stdout').textContent).toBe('tick 1\ntick 2\n')
    expect(within(exec).getByTestId('stderr').textContent).toBe('warning\n')
    expect(exec.textContent).toContain('the rest is shown when the program ends')

    // Stopped: exec_finished brings the kept output; nothing is lost.
    emit(api, evs.slice(7))
    expect(within(exec).getByTestId('exec-status').textContent).toBe('stopped')
    expect(within(exec).getByTestId('exec-status').dataset.status).toBe('killed')
    expect(within(exec).getByTestId('stdout').textContent).toBe('tick 1\ntick 2\ntick 3\n')
    expect(within(exec).queryByTestId('exec-live')).toBeNull()
  })

  it('keeps the printed output of a run that ended without exec_finished', async () => {
    const { api } = await started()
    expect(api.startRun.mock.calls[0][0]).not.toHaveProperty('stdin')
    const evs = printingRun('run-1')
    emit(api, [...evs, finished('run-1', evs.length + 1, 'interrupted')])
    const exec = screen.getByTestId('exec')
    expect(within(exec).getByTestId('stdout').textContent).toBe('tick 1\ntick 2\n')
    expect(exec.textContent).toContain('The program did not finish')
    expect(exec.textContent).not.toContain('Not run yet.')
  })
})

describe('the execution in the UI’s language', () => {
  afterEach(() => setLanguage('en'))

  const iteration = (exec: ExecResult): IterationView => ({
    n: 1,
    phase: 'error',
    generation: '',
    reflection: '',
    reflecting: false,
    exec,
    inputTokens: 0,
    outputTokens: 0,
    tools: [],
    validations: [],
    auditing: false,
  })
  const timedOut: ExecResult = {
    status: 'timeout',
    exitCode: -1,
    stdout: 'tick\n',
    stderr: '',
    truncated: false,
    durationMs: 30_000,
    isolation: 'landlock',
    outcome: { code: 'timeout', params: { ms: '30000' } },
    description: 'timed out after 30s',
    protections: { files: true, memory: false, network: true, processes: false, signals: true },
    notes: [{ code: 'cgroup_partial', params: { controllers: 'pids,memory' } }],
    warnings: ["the run's cgroup has no pids, memory controller: …"],
    images: [],
    imageNotes: [{ code: 'images_too_many', params: { n: '2', max: '8' } }],
    imagesSkipped: ['2 more pictures not kept (at most 8 per run)'],
  }

  it('words the status, protections, outcome and notes the sandbox sends as data', () => {
    setLanguage('pt')
    render(<ExecPanel it={iteration(timedOut)} live={false} runId="r" />)
    expect(screen.getByTestId('exec-status').textContent).toBe('tempo esgotado')
    expect([...screen.getByTestId('protections').children].map((el) => el.textContent)).toEqual(['arquivos ✓', 'rede ✓', 'processos ✗', 'memória ✗', 'sinais ✓'])
    expect(screen.getByTestId('protection-memory').title).toBe('Um só limite de memória para a execução inteira: não aplicada')
    expect(screen.getByTestId('exec-desc').textContent).toBe('tempo esgotado após 30 s')
    expect(screen.getByTestId('sandbox-warning').textContent).toBe(
      '⚠ O cgroup da execução não tem o controlador pids, memory: o número de processos não é limitado; a memória é limitada só por processo (veja loopforge doctor).',
    )
    expect(screen.getByTestId('pictures-skipped').textContent).toBe('Deixadas de fora: mais 2 imagens não guardadas (no máximo 8 por execução)')
    cleanup()
    setLanguage('en')
    render(<ExecPanel it={iteration(timedOut)} live={false} runId="r" />)
    expect(screen.getByTestId('exec-status').textContent).toBe('timed out')
    expect(screen.getByTestId('exec-desc').textContent).toBe('timed out after 30 s')
    expect(screen.getByTestId('pictures-skipped').textContent).toBe('Left out: 2 more pictures not kept (at most 8 per run)')
  })

  it('words an execution recorded before outcomes from its status, and keeps the English of an unknown note', () => {
    setLanguage('pt')
    const old: ExecResult = {
      ...timedOut,
      status: 'error',
      exitCode: 1,
      stderr: 'Traceback…\nZeroDivisionError: division by zero\n',
      outcome: undefined,
      notes: [{ code: 'from_a_newer_server' }],
      warnings: ['something new'],
      imageNotes: undefined,
      imagesSkipped: [],
    }
    render(<ExecPanel it={iteration(old)} live={false} runId="r" />)
    expect(screen.getByTestId('exec-status').textContent).toBe('erro')
    expect(screen.getByTestId('exec-desc').textContent).toBe('código de saída 1: ZeroDivisionError: division by zero')
    expect(screen.getByTestId('sandbox-warning').textContent).toBe('⚠ something new')
  })
})
