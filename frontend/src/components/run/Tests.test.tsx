// @vitest-environment happy-dom
// Tests that judge a run, in the app: the Tests panel of the form (a
// preset fills it, the request carries it), the ✓/✗ row of an iteration
// with its failing case opened, a hidden test's verdict alone, and the
// comparison's tests column with the best highlighted.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ComparisonRow } from '../../api'
import type { TestsPayload } from '../../api/gen/event'
import { setLanguage } from '../../strings'
import { countTests } from '../../strings/tests'
import { fakeApi, presets } from '../../test/fakeApi'
import { renderApp } from '../../test/render'
import { ComparisonTable, mostTestsPassed } from '../compare/CompareView'
import { TestsPanel } from './TestsPanel'

afterEach(cleanup)
beforeEach(() => setLanguage('en'))

const judged: TestsPayload = {
  iteration: 2,
  passed: 1,
  total: 3,
  results: [
    { index: 1, name: 'small', kind: 'io', verdict: 'passed', duration_ms: 5 },
    {
      index: 2,
      name: 'negative',
      kind: 'io',
      verdict: 'wrong_answer',
      input: '-2 -3',
      expected: '-5',
      actual: '1',
      diff: '--- expected\n+++ actual\n-−5\n+1\n',
      duration_ms: 5,
    },
    { index: 3, name: 'secret', kind: 'io', hidden: true, redacted: true, verdict: 'time_limit', duration_ms: 2000 },
  ],
}

describe('the tests row', () => {
  it('shows a ✓/✗ per test, the count, and opens the first failing visible case', () => {
    render(<TestsPanel tests={judged} />)
    expect(screen.getByTestId('tests-count').textContent).toBe('1/3 passed')
    const row = screen.getByTestId('tests-row')
    expect(row.textContent).toBe('✓✗✗')
    expect([...row.querySelectorAll('li')].map((li) => li.getAttribute('data-verdict'))).toEqual(['passed', 'wrong_answer', 'time_limit'])
    const two = screen.getByTestId('test-2') as HTMLDetailsElement
    expect(two.open).toBe(true)
    expect(two.textContent).toContain('Test 2 (negative): wrong answer')
    expect(two.textContent).toContain('-2 -3')
    expect(two.textContent).toContain('+1')
    expect(screen.queryByTestId('test-1')).toBeNull() // a passed test has no case to open
  })

  it('gives a hidden test its verdict only, and never opens it', () => {
    render(<TestsPanel tests={judged} />)
    const three = screen.getByTestId('test-3') as HTMLDetailsElement
    expect(three.open).toBe(false)
    expect(three.textContent).toContain('Test 3 (secret): time limit exceeded')
    expect(three.textContent).toContain('only its verdict is shown')
    // The instructor's copy has evidence: shown, marked, but not opened by itself.
    cleanup()
    const mine: TestsPayload = { ...judged, results: [{ ...judged.results[2], redacted: false, expected: 'SECRET-OUT', detail: 'timed out after 2s' }] }
    render(<TestsPanel tests={mine} />)
    const hidden = screen.getByTestId('test-3') as HTMLDetailsElement
    expect(hidden.open).toBe(false)
    expect(hidden.textContent).toContain('students and the model see only its verdict')
    expect(hidden.textContent).toContain('SECRET-OUT')
  })

  it('speaks Portuguese', () => {
    setLanguage('pt')
    render(<TestsPanel tests={judged} />)
    expect(screen.getByTestId('tests-count').textContent).toBe('1/3 passaram')
    expect(screen.getByTestId('test-2').textContent).toContain('Teste 2 (negative): resposta errada')
  })

  it('shows nothing without tests', () => {
    const { container } = render(<TestsPanel />)
    expect(container.textContent).toBe('')
  })
})

describe('tests in the run', () => {
  it('a preset fills the Tests panel, and the run request carries the YAML; tested events show per iteration', async () => {
    const api = fakeApi()
    const yaml = 'tests:\n  - stdin: "2 3"\n    expected: "5"\n  - stdin: "1 1"\n    expected: "2"\n    hidden: true\n'
    api.presets.mockResolvedValue([...presets, { id: 'soma-pt', title: 'Soma', prompt: 'Some dois números', tests: yaml }])
    renderApp(api)
    await screen.findByTestId('provider-fake')
    await screen.findByRole('option', { name: 'Soma' })
    fireEvent.change(screen.getByTestId('preset'), { target: { value: 'soma-pt' } })
    expect((screen.getByTestId('tests-yaml') as HTMLTextAreaElement).value).toBe(yaml)
    expect(screen.getByTestId('tests-field-count').textContent).toContain('2 tests, 1 hidden')
    // Another preset without tests empties the panel: never another exercise's tests.
    fireEvent.change(screen.getByTestId('preset'), { target: { value: 'data-structures-en' } })
    expect((screen.getByTestId('tests-yaml') as HTMLTextAreaElement).value).toBe('')
    fireEvent.change(screen.getByTestId('preset'), { target: { value: 'soma-pt' } })
    fireEvent.click(screen.getByTestId('run'))
    await screen.findByTestId('run-view')
    expect(api.startRun.mock.calls[0][0]).toMatchObject({ prompt: 'Some dois números', tests: yaml })
    act(() => {
      api.events.emit({ type: 'iteration_started', run_id: 'run-1', seq: 2, ts: '2026-11-21T10:00:01Z', payload: { iteration: 1 } })
      api.events.emit({ type: 'tested', run_id: 'run-1', seq: 3, ts: '2026-11-21T10:00:02Z', payload: { ...judged, iteration: 1 } })
    })
    const tests = await screen.findByTestId('tests')
    expect(within(tests).getByTestId('tests-row').textContent).toBe('✓✗✗')
  })
})

describe('the comparison', () => {
  const row = (p: Partial<ComparisonRow>): ComparisonRow => ({
    run_id: 'x', provider: 'fake', model: 'm', status: 'success', iterations: 1, iterations_to_success: 1, wall_ms: 1000,
    first_token_ms: 100, input_tokens: 100, output_tokens: 50, cost_usd: 0, lines_of_code: 2, final_exit_code: 0, ...p,
  })

  it('has a tests-passed column with the most passed highlighted', () => {
    const rows = [row({ provider: 'a', tests_passed: 3, tests_total: 5 }), row({ provider: 'b', tests_passed: 5, tests_total: 5 })]
    expect([...mostTestsPassed(rows)]).toEqual([1])
    render(<ComparisonTable rows={rows} />)
    const cells = screen.getAllByRole('cell').filter((c) => c.getAttribute('data-col') === 'tests_passed')
    expect(cells.map((c) => c.textContent)).toEqual(['3/5', '5/5'])
    expect(cells[1].className).toContain('best')
    expect(cells[0].className).not.toContain('best')
  })

  it('has no tests column when the runs had none', () => {
    render(<ComparisonTable rows={[row({ provider: 'a' }), row({ provider: 'b' })]} />)
    expect(screen.queryByText('Tests passed')).toBeNull()
    expect(mostTestsPassed([row({}), row({ tests_passed: 0, tests_total: 2 })]).size).toBe(0)
  })
})

describe('countTests', () => {
  it('counts list items and hidden ones, in block and flow style', () => {
    expect(countTests('')).toEqual({ n: 0, hidden: 0 })
    expect(countTests('tests:\n  - {stdin: "1", expected: "1", hidden: true}\n  - name: b\n    assert: |\n      assert f() == 1\n')).toEqual({ n: 2, hidden: 1 })
  })
})
