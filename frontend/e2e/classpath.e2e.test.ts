// End-to-end: a student's learning path. One instructor and two students
// (each their own browser context and cookie) in a class with an
// assignment. Both students are told on the join page and in the app that
// the instructor can see their runs. Each runs once: the fake model's first
// answer divides by zero, the reflection explains it, the second answer
// works. The instructor clicks Ana's card on the wall, opens her learning
// path and sees her prompt, both iterations (the error, the reflection, the
// tokens) and the assignment — and nothing of Bruno's; then Bruno's path
// shows only his. A student asking the server for a path, their own or
// another's, is refused (403). The class export's attempts.csv downloads
// with one row per run and iteration. A screenshot of the path view is saved
// as test-results/screenshots/class-path-1440.png.
//
// Every wait is on a condition (an element, an attribute, a server answer),
// never on a pause.

import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REFLECTION, startFakeOpenAI, type FakeOpenAI } from './fakeOpenAI'
import { CHROMIUM, CHROMIUM_ARGS, finalStatus, newContext, runView, screenshotOnFailure, SHOTS, startRun, WAIT } from './harness'
import { startServe, type Serve } from './serve'

const ASSIGNMENT_TITLE = 'Exercício 1'
const ASSIGNMENT = 'Print a greeting for the class'

let fake: FakeOpenAI
let serve: Serve
let browser: Browser
let teacher: Page
let joinURL: string
let code: string
const students: Array<{ name: string; page: Page; runId?: string; id?: string }> = []
const pageErrors: string[] = []

screenshotOnFailure('classpath', () => [teacher, ...students.map((s) => s.page)])

function watch(p: Page) {
  p.on('pageerror', (e) => pageErrors.push(String(e)))
  p.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text())
  })
}

function card(name: string) {
  return teacher.locator(`[data-testid=wall-card][data-student="${name}"]`)
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  fake = await startFakeOpenAI({ chunkDelayMs: 5, chunkSize: 20 })
  serve = await startServe(fake.url, { args: ['class', '--name', 'Turma Trajetória', '--listen', '127.0.0.1:0'] })
  const m = await serve.waitOutput(/students:\s+(http:\/\/\S+\/join)\s+code:\s+([A-Z0-9-]+)/)
  joinURL = m[1]
  code = m[2]
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  teacher = await (await newContext(browser)).newPage()
  watch(teacher)
  await teacher.goto(serve.url)
  await teacher.getByTestId('class-tab').waitFor()
  for (const name of ['Ana', 'Bruno']) {
    const page = await (await newContext(browser, { viewport: { width: 1280, height: 800 } })).newPage()
    watch(page)
    students.push({ name, page })
  }
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  await fake?.close()
})

describe('a student’s learning path', () => {
  it('students are told, before and after joining, that the instructor sees their runs', async () => {
    for (const s of students) {
      await s.page.goto(joinURL)
      const notice = s.page.getByTestId('seen-notice-join')
      await notice.waitFor()
      expect(await notice.textContent()).toMatch(/instructor can see your runs/i)
      if (s === students[0]) await s.page.screenshot({ path: join(SHOTS, 'class-path-notice-join-1280.png') })
      await s.page.getByTestId('join-code-input').fill(code)
      await s.page.getByTestId('join-name').fill(s.name)
      await s.page.getByTestId('join-submit').click()
      await s.page.getByTestId('student-badge').waitFor()
      expect(await s.page.getByTestId('seen-notice-app').textContent()).toMatch(/instructor can see your runs/i)
      if (s === students[0]) await s.page.screenshot({ path: join(SHOTS, 'class-path-notice-app-1280.png') })
      await card(s.name).waitFor()
      s.id = (await card(s.name).getAttribute('data-student-id')) ?? ''
      expect(s.id).not.toBe('')
    }
  })

  it('each student runs the assignment: a failed iteration, a reflection, then a working one', async () => {
    await teacher.getByTestId('class-assignment').click()
    await teacher.getByTestId('assign-title').fill(ASSIGNMENT_TITLE)
    await teacher.getByTestId('assign-prompt').fill(ASSIGNMENT)
    await teacher.getByTestId('assign-push').click()
    await teacher.getByTestId('class-assignment').click()
    for (const s of students) {
      await expect.poll(() => s.page.getByTestId('prompt').inputValue(), { timeout: WAIT }).toBe(ASSIGNMENT)
      await s.page.getByTestId('prompt').fill(`${ASSIGNMENT} — ${s.name}`)
      s.runId = await startRun(s.page, () => s.page.getByTestId('run').click())
      expect(await finalStatus(runView(s.page, s.runId))).toBe('success')
      await teacher.locator(`[data-testid=wall-card][data-student="${s.name}"][data-state="success"]`).waitFor()
    }
  })

  it('the instructor opens Ana’s path from the wall: her prompt and iterations, none of Bruno’s', async () => {
    const [ana, bruno] = students
    await card(ana.name).click()
    await teacher.getByTestId('student-pane').waitFor()
    await teacher.getByTestId('student-tab-path').click()
    const path = teacher.locator(`[data-testid=learning-path][data-student="${ana.name}"][data-loaded=yes]`)
    await path.waitFor()
    const runs = path.getByTestId('path-run')
    expect(await runs.count()).toBe(1)
    const run = path.locator(`[data-testid=path-run][data-run-id="${ana.runId}"]`)
    expect(await run.getByTestId('path-prompt').textContent()).toBe(`${ASSIGNMENT} — ${ana.name}`)
    expect(await run.getByTestId('path-run-assignment').textContent()).toBe(ASSIGNMENT_TITLE)
    const its = run.getByTestId('path-iteration')
    expect(await its.count()).toBe(2)
    const first = run.locator('[data-testid=path-iteration][data-iteration="1"]')
    expect(await first.getAttribute('data-status')).toBe('error')
    expect(await first.getByTestId('path-error').textContent()).toContain('ZeroDivisionError')
    expect(await first.getByTestId('path-reflection').textContent()).toContain(REFLECTION.slice(0, 40))
    expect(await first.textContent()).toMatch(/tokens/)
    expect(await run.locator('[data-testid=path-iteration][data-iteration="2"]').getAttribute('data-status')).toBe('success')
    // Per assignment: how long until a program worked.
    const a = path.getByTestId('path-assignment')
    expect(await a.count()).toBe(1)
    expect(await a.textContent()).toContain(ASSIGNMENT_TITLE)
    expect(Number(await a.getAttribute('data-working-ms'))).toBeGreaterThan(0)
    expect(await path.textContent()).not.toContain(bruno.name)
    await first.locator('details.path-code summary').click()
    await teacher.screenshot({ path: join(SHOTS, 'class-path-1440.png'), fullPage: true })

    // Bruno's path: his run only.
    await teacher.getByTestId('wall-back').click()
    await card(bruno.name).click()
    await teacher.getByTestId('student-tab-path').click()
    const his = teacher.locator(`[data-testid=learning-path][data-student="${bruno.name}"][data-loaded=yes]`)
    await his.waitFor()
    expect(await his.getByTestId('path-run').count()).toBe(1)
    expect(await his.locator(`[data-testid=path-run][data-run-id="${bruno.runId}"]`).count()).toBe(1)
    expect(await his.getByTestId('path-prompt').textContent()).toBe(`${ASSIGNMENT} — ${bruno.name}`)
    expect(await his.textContent()).not.toContain(`— ${ana.name}`)
    await teacher.getByTestId('wall-back').click()
  })

  it('a student asking for a path, another’s or their own, is refused', async () => {
    const [ana, bruno] = students
    const ask = (p: Page, id: string) =>
      p.evaluate(async (sid) => {
        const r = await fetch(`/api/class/students/${sid}/path`)
        return { status: r.status, body: (await r.json()) as { code?: string } }
      }, id)
    for (const [who, whose] of [
      [bruno, ana],
      [ana, ana],
    ] as const) {
      const r = await ask(who.page, whose.id!)
      expect(r.status).toBe(403)
      expect(r.body.code).toBe('class.instructor_only')
    }
  })

  it('the class export’s attempts.csv has a row per run and iteration', async () => {
    await teacher.getByTestId('class-export').locator('summary').click()
    const download = teacher.waitForEvent('download', { timeout: WAIT })
    await teacher.getByTestId('class-export-attempts').click()
    const d = await download
    expect(d.suggestedFilename()).toMatch(/-attempts\.csv$/)
    const lines = readFileSync(await d.path()).toString('utf8').trim().split(/\r?\n/)
    expect(lines[0]).toMatch(/^student,assignment,run id,started,/)
    expect(lines).toHaveLength(1 + 2 + 2)
    expect(lines.filter((l) => l.startsWith(`Ana,${ASSIGNMENT_TITLE},${students[0].runId},`))).toHaveLength(2)
    expect(lines.filter((l) => l.startsWith(`Bruno,${ASSIGNMENT_TITLE},${students[1].runId},`))).toHaveLength(2)
  })

  it('the pages logged no errors', () => {
    expect(pageErrors).toEqual([])
  })
})
