// The classroom's pure rules, apart from React and the stores so they can be
// tested alone: how a pushed assignment reaches a student's form, how the
// wall is ordered and summed up, how a join code is typed, and how long a
// run has been going.

import type { Assignment, WallEntry, WallRun } from './api/gen/wire'
import { seconds } from './format'

// ---------- assignments ----------

/** What was last put in (or deliberately kept out of) the form from an assignment. */
export interface Applied {
  /** assignmentKey of that assignment. */
  key: string
  /** The prompt it put in the form ("" when the student kept their own). */
  prompt: string
}

/** assignmentKey names an assignment's content: a push of the same content is no news. */
export function assignmentKey(a: Assignment | null | undefined): string {
  if (!a || (!a.prompt.trim() && !a.preset)) return ''
  return JSON.stringify([a.title ?? '', a.prompt, a.preset ?? '', a.providers ?? [], a.max_iterations ?? 0, a.language ?? '', a.timeout_seconds ?? 0, a.reflect ?? null, a.tests ?? '', a.prompt_only ?? false])
}

/**
 * assignmentAction decides what a newly seen assignment does to the form:
 * "fill" it when the student has nothing of their own there (an empty
 * prompt, the prompt of the last assignment untouched, or this one's
 * already), "ask" before replacing a prompt they typed, "none" when it is
 * not new (or there is none).
 */
export function assignmentAction(a: Assignment | null | undefined, prompt: string, applied: Applied | null): 'fill' | 'ask' | 'none' {
  const key = assignmentKey(a)
  if (!key || key === applied?.key) return 'none'
  const typed = prompt.trim()
  if (!typed || typed === a!.prompt.trim() || (applied?.prompt && typed === applied.prompt.trim())) return 'fill'
  return 'ask'
}

/** assignedTests: the assignment's tests (visible or hidden) judge every student's run. */
export function assignedTests(a: Assignment | null | undefined): boolean {
  return !!a && (!!a.tests?.trim() || (a.hidden_tests ?? 0) > 0)
}

// ---------- the join code ----------

/** normalizeCode is what the server compares: upper case, dashes, spaces and other separators dropped. */
export function normalizeCode(typed: string): string {
  return typed.toUpperCase().replace(/[^A-Z0-9]/g, '')
}

/** groupCode shows a code in groups of three (K7Q-X2M), as it is printed. */
export function groupCode(code: string): string {
  const c = normalizeCode(code)
  return c.replace(/(.{3})(?=.)/g, '$1-')
}

/** A display name: 1–40 printable characters once trimmed (the server's rule). */
export function nameProblem(name: string): 'empty' | 'long' | null {
  const n = name.trim()
  if (!n) return 'empty'
  if ([...n].length > 40) return 'long'
  return null
}

// ---------- the wall ----------

export type WallState = 'idle' | 'queued' | 'running' | 'success' | 'failed' | 'cancelled' | 'removed'

/** wallState sums a student's line up in one word (the card's colour). */
export function wallState(e: WallEntry): WallState {
  if (e.removed) return 'removed'
  const r = e.current
  if (!r) return 'idle'
  if (r.status === 'running') return (r.queue_position ?? 0) > 0 ? 'queued' : 'running'
  if (r.status === 'success') return 'success'
  if (r.status === 'cancelled') return 'cancelled'
  return 'failed'
}

/** sortWall orders the wall as students joined (stable, so cards never jump), the removed last. */
export function sortWall(entries: WallEntry[]): WallEntry[] {
  return entries.slice().sort((a, b) => Number(!!a.removed) - Number(!!b.removed) || a.joined_at.localeCompare(b.joined_at) || a.name.localeCompare(b.name))
}

export interface WallCounts {
  students: number
  running: number
  queued: number
  success: number
  failed: number
}

export function wallCounts(entries: WallEntry[]): WallCounts {
  const c: WallCounts = { students: 0, running: 0, queued: 0, success: 0, failed: 0 }
  for (const e of entries) {
    if (e.removed) continue
    c.students++
    const s = wallState(e)
    if (s === 'running') c.running++
    else if (s === 'queued') c.queued++
    else if (s === 'success') c.success++
    else if (s === 'failed') c.failed++
  }
  return c
}

/** elapsedMs: how long a run has been going (till its end when it ended); 0 when the times are unreadable. */
export function elapsedMs(r: Pick<WallRun, 'started_at' | 'ended_at'>, now: number): number {
  const start = Date.parse(r.started_at)
  if (Number.isNaN(start)) return 0
  const end = r.ended_at ? Date.parse(r.ended_at) : now
  return Math.max(0, (Number.isNaN(end) ? now : end) - start)
}

// ---------- where the page is ----------

export type Route = 'app' | 'join' | 'stage'

/** route reads what the address asks for: /join, the projector's #/stage, else the app. */
export function route(loc: Pick<Location, 'pathname' | 'hash'>): Route {
  if (/^\/join\/?$/.test(loc.pathname)) return 'join'
  if (/^#\/stage\/?$/.test(loc.hash)) return 'stage'
  return 'app'
}

/**
 * waitSpan words an estimated queue wait (the server's wait_ms, from the
 * place and the recent executions' times) as a round span for "about …":
 * whole seconds, rounded up, under a minute; whole minutes above. null when
 * there is no estimate (no execution has ended yet).
 */
export function waitSpan(ms: number | undefined): string | null {
  if (ms == null || !(ms > 0)) return null
  const s = Math.max(1, Math.ceil(ms / 1000))
  return seconds(s < 60 ? s : Math.round(s / 60) * 60)
}
