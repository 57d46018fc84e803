// End-to-end: a prompt problem in class (issue 25 item 4), in real Chromium
// against `loopforge class` — one instructor and two students, each with
// their own cookies. The instructor pushes an assignment whose tests
// include a hidden one and whose students write only the prompt; each
// student reads the problem and the visible test (the hidden one only
// counted), writes a prompt and runs it (the fake model answers SUM-RIGHT
// with a right program, SUM-SMALL with one right only for small numbers);
// the assignment's tests judge both runs on the server; the wall shows
// each student's best tests passed, live; nothing of the hidden test
// reaches a student's page or answers; the grade sheet downloads.
// Screenshots of the wall and a student's view are saved under
// test-results/screenshots/.
//
// Every wait is on a condition, never on a pause.

import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeOpenAI, SUM_RIGHT, SUM_SMALL, type FakeOpenAI } from './fakeOpenAI'
import { CHROMIUM, CHROMIUM_ARGS, finalStatus, newContext, runView, screenshotOnFailure, SHOTS, startRun, WAIT } from './harness'
import { startServe, type Serve } from './serve'

const FULL_HD = { width: 1920, height: 1080 }
const LAPTOP = { width: 1280, height: 800 }
const PROBLEM = 'Read two integers on one line and print their sum.'
// The hidden test's input and expected output: no student may ever receive them.
const SECRET_IN = '1000 2345'
const SECRET_OUT = '3345'
const TESTS = `tests:
  - name: small numbers
    stdin: "2 3"
    expected: "5"
  - name: big numbers
    stdin: "${SECRET_IN}"
    expected: "${SECRET_OUT}"
    hidden: true
`

let fake: FakeOpenAI
let serve: Serve
let browser: Browser
let joinURL: string
let code: string
let teacher: Page
const students: Array<{ name: string; prompt: string; ctx?: BrowserContext; page?: Page; runId?: string; sessionId?: string }> = [
  { name: 'Ana', prompt: `${SUM_RIGHT}: read a and b from one line, print a+b` },
  { name: 'João', prompt: `${SUM_SMALL}: add them` },
]
const pageErrors: string[] = []

screenshotOnFailure('classtests', () => [teacher, ...students.map((s) => s.page)])

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

function card(name: string) {
  return teacher.locator(`[data-testid=wall-card][data-student="${name}"]`)
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ chunkDelayMs: 10, chunkSize: 8 })
  serve = await startServe(fake.url, { args: ['class', '--name', 'Prompt problems', '--listen', '127.0.0.1:0'] })
  const m = await serve.waitOutput(/students:\s+(http:\/\/\S+\/join)\s+code:\s+([A-Z0-9-]+)/)
  joinURL = m[1]
  code = m[2]
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  const teacherCtx = await newContext(browser, { viewport: FULL_HD })
  teacher = await teacherCtx.newPage()
  watch(teacher)
  await teacher.goto(serve.url)
  await teacher.getByTestId('class-tab').waitFor()
  for (const s of students) {
    s.ctx = await newContext(browser, { viewport: LAPTOP })
    s.page = await s.ctx.newPage()
    watch(s.page)
    await s.page.goto(`${joinURL}?code=${code.replace(/-/g, '')}`)
    await s.page.getByTestId('join-name').fill(s.name)
    await s.page.getByTestId('join-submit').click()
    await s.page.getByTestId('student-badge').waitFor()
    await card(s.name).waitFor()
  }
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  await fake?.close()
})

describe('a prompt problem in class', () => {
  it('the instructor pushes an assignment with a hidden test; students read the problem, not the hidden test', async () => {
    await teacher.getByTestId('class-assignment').click()
    await teacher.getByTestId('assign-title').fill('Soma')
    await teacher.getByTestId('assign-prompt').fill(PROBLEM)
    await teacher.getByTestId('assign-tests').fill(TESTS)
    expect(await teacher.getByTestId('assign-tests-count').textContent()).toContain('2 tests, 1 hidden')
    await teacher.getByTestId('assign-prompt-only').check()
    await teacher.getByTestId('assign-iterations').fill('2')
    await shot(teacher, 'classtests-assign-1920')
    await teacher.getByTestId('assign-push').click()
    for (const s of students) {
      const p = s.page!
      await p.getByTestId('assignment-problem').waitFor({ timeout: WAIT })
      expect(await p.getByTestId('assignment-statement').textContent()).toBe(PROBLEM)
      expect(await p.getByTestId('assignment-judged').textContent()).toMatch(/2 tests \(1 hidden/)
      // The student writes the prompt: the form is not filled with the problem, and there is no Tests panel of their own.
      expect(await p.getByTestId('prompt').inputValue()).toBe('')
      expect(await p.getByTestId('tests-field').count()).toBe(0)
      await p.getByTestId('assignment-problem').locator('summary').click()
      expect(await p.getByTestId('assignment-visible-tests').textContent()).toContain('2 3')
    }
    await shot(students[0].page!, 'classtests-problem-1280')
    await teacher.getByTestId('class-assignment').click() // fold the form away
  })

  it('both students run their prompts; the assignment’s tests judge them and the wall shows tests passed per student', async () => {
    for (const s of students) {
      const p = s.page!
      await p.getByTestId('prompt').fill(s.prompt)
      s.runId = await startRun(p, () => p.getByTestId('run').click())
    }
    const [ana, joao] = students
    expect(await finalStatus(runView(ana.page!, ana.runId!))).toBe('success')
    expect(await finalStatus(runView(joao.page!, joao.runId!))).toBe('limit_reached')
    await card('Ana').and(teacher.locator('[data-best="2/2"]')).waitFor({ timeout: WAIT })
    await card('João').and(teacher.locator('[data-best="1/2"]')).waitFor({ timeout: WAIT })
    expect(await card('Ana').getByTestId('wall-best-tests').textContent()).toBe('best 2/2')
    // A run counts by where it ended, as on the grade sheet: João's stayed at 1/2 over both iterations.
    expect(await card('João').getByTestId('wall-best').textContent()).toMatch(/^best 1\/2\s*2 it\. · 19 chars$/)
    await shot(teacher, 'classtests-wall-1920')

    // João's run view: the hidden test is there as its verdict only.
    const view = runView(joao.page!, joao.runId!)
    await view.locator('[data-testid=tests-count]').first().waitFor()
    expect(await view.locator('[data-testid=tests-count]').first().textContent()).toContain('1/2')
    await shot(joao.page!, 'classtests-student-1280')
  })

  it('nothing of the hidden test reaches a student: page, session, export, class view', async () => {
    for (const s of students) {
      const p = s.page!
      const received = await p.evaluate(async () => {
        const texts: string[] = [document.documentElement.outerHTML]
        const list = await (await fetch('/api/sessions')).text()
        texts.push(list)
        const sessionId = (JSON.parse(list) as Array<{ id: string }>)[0]?.id
        for (const path of ['/api/me', ...(sessionId ? [`/api/sessions/${sessionId}`, `/api/sessions/${sessionId}/export?format=json`, `/api/sessions/${sessionId}/export?format=html`] : [])]) {
          texts.push(await (await fetch(path)).text())
        }
        return { all: texts.join('\n'), sessionId }
      })
      expect(received.sessionId, 'the student has a session').toBeTruthy()
      expect(received.all).not.toContain(SECRET_IN)
      expect(received.all).not.toContain(SECRET_OUT)
      expect(received.all).toContain('big numbers') // the hidden test's name and verdict are theirs to see
      // The grade sheet is the instructor's.
      const refused = await p.evaluate(async () => (await fetch('/api/class/export?format=grades')).status)
      expect(refused).toBe(403)
    }
  })

  it('the instructor downloads the grade sheet', async () => {
    await teacher.getByTestId('class-export').locator('summary').click()
    const download = teacher.waitForEvent('download', { timeout: WAIT })
    await teacher.getByTestId('class-export-grades').click()
    const d = await download
    expect(d.suggestedFilename()).toMatch(/-grades\.csv$/)
    const lines = readFileSync(await d.path()).toString().trim().split(/\r?\n/)
    expect(lines[0]).toBe('student,assignment,tests passed,tests total,score (%),attempts,seconds (first run to best),best run status,best run id')
    expect(lines[1]).toMatch(/^Ana,Soma,2,2,100\.0,1,/)
    expect(lines[2]).toMatch(/^João,Soma,1,2,50\.0,1,/)
    expect(pageErrors).toEqual([])
  })
})
