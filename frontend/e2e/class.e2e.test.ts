// End-to-end: the classroom server (`loopforge class`) in real Chromium —
// one instructor context and three student contexts, each with its own
// cookies. The students join with the code, get the pushed assignment in
// their form, run, and see only their own sessions; the instructor's wall
// shows all three live (fed by the class stream), a spotlighted run appears
// on the stage and in the projector window, Stop ends a student's run, a
// paused class refuses a run with the message, the class export downloads,
// and 40 students' cards fit a 1920×1080 screen. Screenshots of the join
// page, the student view and the wall (1920×1080 and 1280×800) are saved
// under test-results/screenshots/.
//
// Every wait is on a condition (an element, an attribute, a server answer),
// never on a pause.

import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeOpenAI, type FakeOpenAI } from './fakeOpenAI'
import { CHROMIUM, CHROMIUM_ARGS, finalStatus, newContext, runView, screenshotOnFailure, SHOTS, startRun, WAIT } from './harness'
import { startServe, type Serve } from './serve'

const FULL_HD = { width: 1920, height: 1080 }
const LAPTOP = { width: 1280, height: 800 }
const CLASS = 'Turma E2E'
const NAMES = ['Ana', 'Bruno', 'Carla']
const ASSIGNMENT = 'Print a greeting for the class'

let fake: FakeOpenAI
let serve: Serve
let browser: Browser
let joinURL: string
let code: string
let teacher: Page
let teacherCtx: BrowserContext
const students: Array<{ name: string; ctx: BrowserContext; page: Page; runId?: string; sessionId?: string }> = []
const pageErrors: string[] = []
let projector: Page | undefined

screenshotOnFailure('class', () => [teacher, ...students.map((s) => s.page), projector])

function watch(p: Page) {
  p.on('pageerror', (e) => pageErrors.push(String(e)))
  p.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text())
  })
}

async function shot(p: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true })
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false })
}

/** The wall card of one student, on the instructor's page. */
function card(name: string) {
  return teacher.locator(`[data-testid=wall-card][data-student="${name}"]`)
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  fake = await startFakeOpenAI({ chunkDelayMs: 30, chunkSize: 5 })
  serve = await startServe(fake.url, { args: ['class', '--name', CLASS, '--listen', '127.0.0.1:0'] })
  const m = await serve.waitOutput(/students:\s+(http:\/\/\S+\/join)\s+code:\s+([A-Z0-9-]+)/)
  joinURL = m[1]
  code = m[2]
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  teacherCtx = await newContext(browser, { viewport: FULL_HD })
  teacher = await teacherCtx.newPage()
  watch(teacher)
  await teacher.goto(serve.url)
  await teacher.getByTestId('class-tab').waitFor()
  for (const name of NAMES) {
    const ctx = await newContext(browser, { viewport: LAPTOP })
    const page = await ctx.newPage()
    watch(page)
    students.push({ name, ctx, page })
  }
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  await fake?.close()
})

describe('a class', () => {
  it('the instructor sees how to join: the address, the code and a QR code of both', async () => {
    expect(await teacher.getByTestId('class-name').textContent()).toBe(CLASS)
    expect(await teacher.getByTestId('join-url').textContent()).toBe(joinURL)
    expect((await teacher.getByTestId('join-code').textContent())?.replace(/-/g, '')).toBe(code.replace(/-/g, ''))
    expect(await teacher.getByTestId('qr').getAttribute('data-text')).toBe(`${joinURL}?code=${code.replace(/-/g, '')}`)
    await teacher.getByTestId('wall-empty').waitFor()
  })

  it('students join with the code (separate cookies) and appear on the wall, live', async () => {
    for (const [i, s] of students.entries()) {
      await s.page.goto(joinURL)
      await s.page.getByTestId('join-page').waitFor()
      if (i === 0) {
        await shot(s.page, 'class-join-1280')
        await s.page.setViewportSize(FULL_HD)
        await shot(s.page, 'class-join-1920')
        await s.page.setViewportSize(LAPTOP)
        // A wrong code first: refused by its code, worded by the page.
        await s.page.getByTestId('join-code-input').fill('ZZZ-ZZZ')
        await s.page.getByTestId('join-name').fill(s.name)
        await s.page.getByTestId('join-submit').click()
        expect(await s.page.getByTestId('join-error').textContent()).toMatch(/not the class code/i)
      }
      await s.page.getByTestId('join-code-input').fill(code.toLowerCase())
      await s.page.getByTestId('join-name').fill(s.name)
      await s.page.getByTestId('join-submit').click()
      await s.page.getByTestId('student-badge').waitFor()
      expect(await s.page.getByTestId('student-badge').textContent()).toContain(s.name)
      await card(s.name).waitFor()
    }
    expect(await teacher.getByTestId('wall-card').count()).toBe(3)
    // A student has no Stats, no Class tab and no folder.
    const p = students[0].page
    expect(await p.getByTestId('nav-stats').count()).toBe(0)
    expect(await p.getByTestId('nav-class').count()).toBe(0)
    expect(await p.locator('.workdir').count()).toBe(0)
    // Their cookie holds across a reload.
    await p.reload()
    await p.getByTestId('student-badge').waitFor()
  })

  it('a pushed assignment fills every student’s form', async () => {
    await teacher.getByTestId('class-assignment').click()
    await teacher.getByTestId('assign-title').fill('Exercise 1')
    await teacher.getByTestId('assign-prompt').fill(ASSIGNMENT)
    await teacher.getByTestId('assign-push').click()
    for (const s of students) {
      await expect.poll(() => s.page.getByTestId('prompt').inputValue(), { timeout: WAIT }).toBe(ASSIGNMENT)
      await s.page.getByTestId('assignment-banner').waitFor()
    }
    await teacher.getByTestId('class-assignment').click() // fold the form away
    await shot(students[0].page, 'class-student-1280')
  })

  it('students run; the wall shows all three live; each sees only their own sessions', async () => {
    for (const s of students) {
      // Each puts their name in the prompt, to tell the sessions apart.
      await s.page.getByTestId('prompt').fill(`${ASSIGNMENT} — ${s.name}`)
      s.runId = await startRun(s.page, () => s.page.getByTestId('run').click())
    }
    for (const s of students) {
      // The wall shows each student's run as it goes and as it ends, without a reload.
      await teacher.locator(`[data-testid=wall-card][data-student="${s.name}"][data-run-id="${s.runId}"]`).waitFor()
    }
    for (const s of students) {
      expect(await finalStatus(runView(s.page, s.runId!))).toBe('success')
      await teacher.locator(`[data-testid=wall-card][data-student="${s.name}"][data-state="success"]`).waitFor()
    }
    await shot(teacher, 'class-wall-1920')
    await shot(students[1].page, 'class-student-run-1280')
    await students[1].page.setViewportSize(FULL_HD)
    await shot(students[1].page, 'class-student-1920')
    await students[1].page.setViewportSize(LAPTOP)

    for (const s of students) {
      await s.page.getByTestId('nav-history').click()
      const sessions = s.page.getByTestId('session')
      await sessions.first().waitFor()
      expect(await sessions.count()).toBe(1)
      expect(await sessions.first().textContent()).toContain(s.name)
      const others = NAMES.filter((n) => n !== s.name)
      for (const o of others) expect(await sessions.first().textContent()).not.toContain(o)
      await s.page.getByTestId('nav-run').click()
    }
    // Another student's run, asked for by id: the same answer as a missing one.
    const other = await students[0].page.evaluate(async (id) => (await fetch(`/api/runs/${id}/cancel`, { method: 'POST' })).status, students[1].runId!)
    expect(other).toBe(404)
  })

  it('a spotlighted run shows on the stage and in the projector window; Stop ends it', async () => {
    const s = students[2]
    // The form is folded while a run is on screen.
    if (await s.page.getByTestId('form-expand').count()) await s.page.getByTestId('form-expand').click()
    await s.page.getByTestId('prompt').fill(`${ASSIGNMENT} HOLD-SECOND — ${s.name}`)
    const runId = await startRun(s.page, () => s.page.getByTestId('run').click())
    // The run reaches its second iteration and holds there until stopped.
    await runView(s.page, runId).locator('[data-testid=iteration][data-iteration="2"]').waitFor()

    projector = await teacherCtx.newPage()
    watch(projector)
    await projector.goto(new URL('/#/stage', serve.url.replace(/\?.*$/, '')).toString())
    await projector.getByTestId('stage-idle').waitFor()

    await card(s.name).and(teacher.locator(`[data-run-id="${runId}"]`)).click()
    const pane = teacher.getByTestId('student-pane')
    await runView(pane, runId).waitFor()
    await teacher.getByTestId('spotlight').click()
    const stage = teacher.getByTestId('stage-pane')
    await stage.locator(`[data-testid=run-view][data-run-id="${runId}"].run-stage [data-testid=iteration][data-iteration="2"]`).waitFor()
    expect(await stage.getByTestId('stage-who').textContent()).toContain(s.name)
    // The projector window follows the spotlight by itself.
    await projector.locator(`[data-testid=projector-app][data-spotlight="${runId}"]`).waitFor()
    await runView(projector, runId).locator('[data-testid=iteration][data-iteration="2"]').waitFor()
    expect(await projector.evaluate(() => document.documentElement.dataset.projector)).toBe('on')
    await shot(projector, 'class-projector-1920')

    // Stop, from the instructor's view of the student's run.
    await teacher.getByTestId('stage-back').click()
    await card(s.name).click()
    await teacher.getByTestId('student-stop').click()
    expect(await finalStatus(runView(s.page, runId))).toBe('cancelled')
    await teacher.getByTestId('wall-back').click()
    await teacher.locator(`[data-testid=wall-card][data-student="${s.name}"][data-state="cancelled"]`).waitFor()
    await teacher.getByTestId('clear-stage').click()
    await projector.getByTestId('stage-idle').waitFor()
    await projector.close()
    projector = undefined
  })

  it('a paused class refuses a run with the message', async () => {
    await teacher.getByTestId('class-pause').click()
    const p = students[0].page
    await p.getByTestId('class-paused').waitFor()
    expect(await p.getByTestId('class-paused').textContent()).toContain('Paused by the instructor')
    if (await p.getByTestId('form-expand').count()) await p.getByTestId('form-expand').click()
    await p.locator('[data-testid=run][disabled]').waitFor()
    // The server refuses too, whatever the page does.
    const refused = await p.evaluate(async () => {
      const r = await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt: 'sneaky' }) })
      return { status: r.status, body: (await r.json()) as { error?: string } }
    })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toMatch(/paused by the instructor/i)
    await teacher.getByTestId('class-pause').click()
    await p.locator('[data-testid=class-paused]').waitFor({ state: 'detached' })
    await p.locator('[data-testid=run]:not([disabled])').waitFor()
  })

  it('the class export downloads: the summary table and the zip', async () => {
    for (const [format, ext] of [
      ['csv', '.csv'],
      ['zip', '.zip'],
    ] as const) {
      await teacher.getByTestId('class-export').locator('summary').click()
      const download = teacher.waitForEvent('download', { timeout: WAIT })
      // A refusal shows on the page instead of a download: fail at once with the server's words.
      const refused = teacher
        .getByTestId('class-error')
        .waitFor({ timeout: WAIT })
        .then(async () => {
          throw new Error(`the class export was refused: ${await teacher.getByTestId('class-error').textContent()}`)
        })
      await teacher.getByTestId(`class-export-${format}`).click()
      const d = await Promise.race([download, refused])
      refused.catch(() => {}) // the download won: the refusal wait times out unheard
      expect(d.suggestedFilename().endsWith(ext)).toBe(true)
      const path = await d.path()
      const body = readFileSync(path)
      if (format === 'csv') {
        for (const n of NAMES) expect(body.toString()).toContain(n)
      } else {
        expect(body.subarray(0, 2).toString()).toBe('PK')
      }
    }
  })

  it('40 students’ cards fit a 1920×1080 screen, and stay usable at 1280×800', async () => {
    // 37 more students join over HTTP, as their browsers would.
    const origin = new URL(joinURL).origin
    for (let i = 4; i <= 40; i++) {
      const r = await fetch(`${origin}/api/class/join`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: origin },
        body: JSON.stringify({ code, name: `Student ${String(i).padStart(2, '0')}` }),
      })
      expect(r.status).toBe(200)
    }
    await expect.poll(() => teacher.getByTestId('wall-card').count(), { timeout: WAIT }).toBe(40)
    await shot(teacher, 'class-wall-40-1920') // before the checks: a failure's picture is the one to look at
    const boxes = await teacher.getByTestId('wall-card').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect))
    for (const b of boxes) {
      expect(b.bottom).toBeLessThanOrEqual(FULL_HD.height + 0.5)
      expect(b.right).toBeLessThanOrEqual(FULL_HD.width + 0.5)
      expect(b.width).toBeGreaterThanOrEqual(160)
    }
    await teacher.setViewportSize(LAPTOP)
    const sideways = await teacher.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)
    expect(sideways).toBe(false)
    const first = await teacher.getByTestId('wall-card').first().boundingBox()
    expect(first!.width).toBeGreaterThanOrEqual(160)
    await shot(teacher, 'class-wall-40-1280')
    await teacher.setViewportSize(FULL_HD)
  })

  it('no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
