// The classroom in component and store tests: a class, wall lines, and an
// api.call that answers the class operations like the server would (each a
// vi.fn the test can inspect or re-fake). The class stream is pushed by the
// test with api.events.emitClass.

import { vi } from 'vitest'
import type { Assignment, ClassLimits, ClassView, Me, WallEntry, WallRun } from '../api/gen/wire'
import type { FakeApi } from './fakeApi'

export const noLimits: ClassLimits = {
  providers: [],
  presets: [],
  max_iterations: 0,
  concurrent_runs: 0,
  runs_per_hour: 0,
  tokens_per_student: 0,
  tokens_for_class: 0,
  cost_per_student_usd: 0,
  concurrent_executions: 0,
  scratch_workspace: false,
  budget_window: 'class',
  tokens_per_iteration: 0,
  budget_profile: '',
  max_student_tests: 0,
}

export function classView(patch: Partial<ClassView> = {}): ClassView {
  return {
    id: 'c_1',
    name: 'Turma A',
    paused: false,
    limits: noLimits,
    iteration_cap: 50,
    usage: { runs: 0, running_runs: 0, runs_last_hour: 0, tokens: 0, cost_usd: 0, budget_tokens: 0, budget_held: 0, budget_cost_usd: 0 },
    ...patch,
  }
}

/** The instructor's view: with the join address and code. */
export function instructorClass(patch: Partial<ClassView> = {}): ClassView {
  return classView({ join_url: 'http://192.168.1.20:8765/join', join_code: 'K7QX2M', ...patch })
}

export function wallRun(name: string, patch: Partial<WallRun> = {}): WallRun {
  return {
    run_id: `run-${name}`,
    session_id: `sess-${name}`,
    provider: 'fake',
    model: 'fake-model',
    status: 'running',
    iteration: 1,
    max_iterations: 3,
    started_at: new Date(Date.now() - 5000).toISOString(),
    ...patch,
  }
}

export function wallEntry(name: string, run?: Partial<WallRun> | null, patch: Partial<WallEntry> = {}): WallEntry {
  return {
    student_id: `st-${name}`,
    name,
    joined_at: `2026-11-21T10:00:0${name.length % 10}Z`,
    usage: { runs: run ? 1 : 0, running_runs: 0, runs_last_hour: 0, tokens: 1200, cost_usd: 0, budget_tokens: 1200, budget_held: 0, budget_cost_usd: 0 },
    ...(run !== undefined && run !== null ? { current: wallRun(name, run) } : {}),
    ...patch,
  }
}

export type ClassOps = ReturnType<typeof fakeClass>

/**
 * fakeClass makes api.call answer Me with `me` and the class operations as
 * the server would (each answering the class after the change).
 */
export function fakeClass(api: FakeApi, me: Me, wall: WallEntry[] = []) {
  let cls = me.class ?? null
  const update = (patch: Partial<ClassView>) => {
    cls = { ...(cls ?? instructorClass()), ...patch }
    return cls
  }
  const ops = {
    Me: vi.fn(async () => ({ ...me, ...(cls ? { class: cls } : {}) })),
    Wall: vi.fn(async () => wall),
    ClassSettings: vi.fn(async (l: ClassLimits) => update({ limits: l })),
    Assign: vi.fn(async (a: Assignment) => update({ assignment: a.prompt ? a : undefined })),
    PauseClass: vi.fn(async (p: { paused: boolean }) => update({ paused: p.paused })),
    SetSpotlight: vi.fn(async (s: { run_id: string }) => update({ spotlight: s.run_id })),
    RemoveStudent: vi.fn(async () => ({})),
  }
  api.call.mockImplementation(async (name: string, input: unknown) => {
    const op = (ops as Record<string, (x: unknown) => Promise<unknown>>)[name]
    if (!op) throw new Error(`fakeClass: call ${name} is not faked`)
    return op(input)
  })
  return ops
}
