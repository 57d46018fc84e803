import { describe, expect, it } from 'vitest'
import type { Assignment, WallEntry } from './api/gen/wire'
import { assignmentAction, assignmentKey, elapsedMs, groupCode, nameProblem, normalizeCode, route, sortWall, waitSpan, wallCounts, wallState } from './classroom'

const usage = { runs: 0, running_runs: 0, runs_last_hour: 0, tokens: 0, cost_usd: 0, budget_tokens: 0, budget_held: 0, budget_cost_usd: 0 }
function entry(name: string, joined: string, status?: string, extra: Partial<WallEntry> = {}): WallEntry {
  return {
    student_id: `s-${name}`,
    name,
    joined_at: joined,
    usage,
    ...(status
      ? { current: { run_id: `r-${name}`, session_id: `x-${name}`, provider: 'fake', status, iteration: 1, max_iterations: 3, started_at: '2026-11-21T10:00:00Z' } }
      : {}),
    ...extra,
  }
}

describe('assignments reach the form', () => {
  const a: Assignment = { title: 'Ex 1', prompt: 'Sort a list' }
  it('fills an empty form, the form still holding the last assignment, or this one already', () => {
    expect(assignmentAction(a, '', null)).toBe('fill')
    expect(assignmentAction(a, '  ', null)).toBe('fill')
    expect(assignmentAction(a, 'Sort a list', null)).toBe('fill')
    expect(assignmentAction(a, 'Old exercise', { key: 'old', prompt: 'Old exercise' })).toBe('fill')
  })
  it('asks before replacing a prompt the student typed', () => {
    expect(assignmentAction(a, 'my own idea', null)).toBe('ask')
    expect(assignmentAction(a, 'my own idea', { key: 'old', prompt: 'Old exercise' })).toBe('ask')
  })
  it('does nothing for the same assignment again, or for none', () => {
    expect(assignmentAction(a, 'anything', { key: assignmentKey(a), prompt: 'Sort a list' })).toBe('none')
    expect(assignmentAction(undefined, '', null)).toBe('none')
    expect(assignmentAction({ prompt: '' }, '', null)).toBe('none')
  })
  it('a change of any setting is a new assignment', () => {
    expect(assignmentKey(a)).not.toBe(assignmentKey({ ...a, max_iterations: 4 }))
    expect(assignmentKey(a)).not.toBe(assignmentKey({ ...a, providers: ['fake'] }))
    expect(assignmentKey(a)).toBe(assignmentKey({ ...a }))
  })
})

describe('the join code and name', () => {
  it('compares like the server: case, dashes and spaces do not matter', () => {
    expect(normalizeCode(' k7q-x2m ')).toBe('K7QX2M')
    expect(normalizeCode('K7Q X2M')).toBe('K7QX2M')
    expect(groupCode('k7qx2m')).toBe('K7Q-X2M')
    expect(groupCode('k7q')).toBe('K7Q')
    expect(groupCode('k7qx')).toBe('K7Q-X')
  })
  it('wants 1–40 characters once trimmed', () => {
    expect(nameProblem('  ')).toBe('empty')
    expect(nameProblem('Ana')).toBeNull()
    expect(nameProblem('x'.repeat(40))).toBeNull()
    expect(nameProblem('x'.repeat(41))).toBe('long')
  })
})

describe('the wall', () => {
  it('sums each line up in one state', () => {
    expect(wallState(entry('a', '1'))).toBe('idle')
    expect(wallState(entry('a', '1', 'running'))).toBe('running')
    const q = entry('a', '1', 'running')
    q.current!.queue_position = 2
    expect(wallState(q)).toBe('queued')
    expect(wallState(entry('a', '1', 'success'))).toBe('success')
    expect(wallState(entry('a', '1', 'limit_reached'))).toBe('failed')
    expect(wallState(entry('a', '1', 'error'))).toBe('failed')
    expect(wallState(entry('a', '1', 'cancelled'))).toBe('cancelled')
    expect(wallState(entry('a', '1', 'running', { removed: true }))).toBe('removed')
  })
  it('keeps join order, the removed last, and counts only those still in', () => {
    const list = [entry('c', '2026-11-21T10:03:00Z', 'success'), entry('a', '2026-11-21T10:01:00Z', 'running', { removed: true }), entry('b', '2026-11-21T10:02:00Z', 'running')]
    expect(sortWall(list).map((e) => e.name)).toEqual(['b', 'c', 'a'])
    expect(wallCounts(list)).toEqual({ students: 2, running: 1, queued: 0, success: 1, failed: 0 })
  })
  it('measures a run from its start to now, or to its end', () => {
    const now = Date.parse('2026-11-21T10:01:05Z')
    expect(elapsedMs({ started_at: '2026-11-21T10:00:00Z' }, now)).toBe(65_000)
    expect(elapsedMs({ started_at: '2026-11-21T10:00:00Z', ended_at: '2026-11-21T10:00:30Z' }, now)).toBe(30_000)
    expect(elapsedMs({ started_at: 'garbage' }, now)).toBe(0)
  })
})

describe('route', () => {
  it('reads /join, the projector and the app', () => {
    expect(route({ pathname: '/join', hash: '' })).toBe('join')
    expect(route({ pathname: '/join/', hash: '' })).toBe('join')
    expect(route({ pathname: '/', hash: '#/stage' })).toBe('stage')
    expect(route({ pathname: '/', hash: '' })).toBe('app')
    expect(route({ pathname: '/joinx', hash: '' })).toBe('app')
  })
})

describe('waitSpan', () => {
  it('rounds the estimate up to whole seconds under a minute, to minutes above; none without one', () => {
    expect(waitSpan(undefined)).toBeNull()
    expect(waitSpan(0)).toBeNull()
    expect(waitSpan(120)).toBe('1 s')
    expect(waitSpan(4200)).toBe('5 s')
    expect(waitSpan(5000)).toBe('5 s')
    expect(waitSpan(59_500)).toBe('1 min')
    expect(waitSpan(100_000)).toBe('2 min')
  })
})
