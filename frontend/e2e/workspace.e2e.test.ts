// End-to-end: the per-run network opt-in and workspace mode, with the real
// loopforge binary (`serve`), the fake OpenAI-compatible provider (which
// edits files through streamed tool calls) and a real git repository.

import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUDIT_REASON, CALC_RIGHT, CALC_WRONG, WORKSPACE_MARKER, WS_FIX_SUMMARY } from './fakeOpenAI'
import { openApp, type Harness } from './harness'

const BUGGY_CALC = 'def add(a, b):\n    return a - b\n'
const CHECK = 'from calc import add\n\nresult = add(2, 3)\nassert result == 5, f"add(2, 3) returned {result}, expected 5"\nprint("add(2, 3) == 5: ok")\n'

let h: Harness
let page: Page
let repo = ''
/** The JSON bodies the page POSTed to /api/runs, in order. */
const runRequests: Array<Record<string, unknown>> = []

function git(...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  })
}

/** A git repository with one commit: calc.py whose add() subtracts, and check.py that says so. */
function makeRepo(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopforge-e2e-repo-')))
  repo = dir
  writeFileSync(join(dir, 'calc.py'), BUGGY_CALC)
  writeFileSync(join(dir, 'check.py'), CHECK)
  git('init', '--quiet', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=Loopforge Test', '-c', 'user.email=test@example.invalid', 'commit', '--quiet', '-m', 'calc with a bug')
  return dir
}

async function setWorkdir(path: string) {
  await page.getByTestId('workdir-change').click()
  await page.getByTestId('workdir-input').fill(path)
  await page.getByTestId('workdir-input').press('Enter')
  await expect.poll(() => page.getByTestId('workdir-path').getAttribute('title')).toBe(path)
}

const chipPhases = () => page.getByTestId('iteration-chip').evaluateAll((els) => els.map((e) => e.getAttribute('data-phase')))
const chipChecks = () => page.getByTestId('chip-checks').allTextContents()

beforeAll(async () => {
  h = await openApp()
  page = h.page
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/runs') runRequests.push(JSON.parse(r.postData() ?? '{}'))
  })
  await page.getByTestId('provider-fake').waitFor()
})

afterAll(async () => {
  await h?.close()
  if (repo) rmSync(repo, { recursive: true, force: true })
})

describe('network opt-in and workspace mode', () => {
  it('sends allow_network for the one run it was ticked for and shows the badge on that run', async () => {
    const box = page.getByTestId('allow-network')
    expect(await box.isChecked()).toBe(false)
    await page.getByTestId('prompt').fill('Print a friendly greeting, network allowed')
    await box.check()
    await page.getByTestId('run').click()
    const badge = page.getByTestId('run-view').getByTestId('network-badge')
    await badge.waitFor({ timeout: 15_000 })
    expect(await badge.textContent()).toContain('Network allowed')
    expect(runRequests).toHaveLength(1)
    expect(runRequests[0]).toMatchObject({ prompt: 'Print a friendly greeting, network allowed', allow_network: true })
    // It is for this run only: the box is clear again.
    expect(await box.isChecked()).toBe(false)
    const banner = page.getByTestId('run-banner')
    await banner.waitFor({ timeout: 30_000 })
    expect(await banner.getAttribute('data-status')).toBe('success')
    await page.locator('.run-area').evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await h.shot('network-run')
  })

  it('refuses a project with uncommitted changes and says which', async () => {
    makeRepo()
    writeFileSync(join(repo, 'notes.txt'), 'not committed\n')
    await page.evaluate(() => window.scrollTo(0, 0))
    // The header's path field sets the workdir.
    await setWorkdir(repo)
    await page.getByTestId('mode-workspace').check()
    await page.getByTestId('workspace-fields').waitFor()
    expect(await page.getByTestId('ws-project-path').textContent()).toBe(repo)
    // The commands run in the sandbox, 5 minutes each by default.
    expect(await page.getByTestId('sandbox-commands').textContent()).toBe('Validation commands: up to 5 min each, in the sandbox.')
    expect(await page.getByTestId('sandbox-limits').textContent()).toContain('1 GiB memory')
    expect(await page.getByTestId('language').count()).toBe(0)
    await page.getByTestId('ws-validate').fill('python3 check.py')
    await page.getByTestId('prompt').fill(`${WORKSPACE_MARKER}: Fix add() in calc.py so that check.py passes`)
    await page.getByTestId('run').click()
    const err = page.getByTestId('start-error')
    await err.waitFor({ timeout: 15_000 })
    const text = (await err.textContent()) ?? ''
    expect(text).toContain('uncommitted changes')
    expect(text).toContain('notes.txt')
    await h.shot('workspace-refused')
    unlinkSync(join(repo, 'notes.txt'))

    // The same form in Portuguese.
    await page.getByTestId('lang-pt').click()
    await expect.poll(() => page.getByTestId('mode').textContent()).toBe('ScriptProjeto')
    expect(await page.getByTestId('allow-network').locator('xpath=..').textContent()).toContain('Permitir rede nesta execução')
    expect(await page.getByTestId('workspace-fields').textContent()).toContain('Comandos de validação')
    await h.shot('workspace-form-pt')
    await page.getByTestId('lang-en').click()
    await expect.poll(() => page.getByTestId('mode').textContent()).toBe('ScriptWorkspace')
    await page.getByTestId('projector').click()
    await page.getByTestId('sandbox-info').scrollIntoViewIfNeeded()
    await h.shot('workspace-form-projector')
    await page.getByTestId('projector').click()
    await page.evaluate(() => window.scrollTo(0, 0))
  })

  it('runs a workspace loop: a failed validation, then a passing one, reviewed and committed to a branch', async () => {
    await page.getByTestId('ws-auditor').selectOption('quick')
    const before = runRequests.length
    await page.getByTestId('run').click()
    await page.getByTestId('run-view').waitFor()
    // The view may still show the previous run (with its own success
    // banner) until this one starts: wait for this run's two attempts.
    await expect.poll(() => runRequests.length).toBeGreaterThan(before)
    await expect.poll(chipPhases, { timeout: 60_000 }).toEqual(['error', 'success'])
    const banner = page.getByTestId('run-banner')
    await expect.poll(() => banner.getAttribute('data-status'), { timeout: 60_000 }).toBe('success')
    expect(runRequests[before]).toMatchObject({
      mode: 'workspace',
      workdir: repo,
      validate: ['python3 check.py'],
      auditor: 'quick',
      prompt: `${WORKSPACE_MARKER}: Fix add() in calc.py so that check.py passes`,
    })
    expect(runRequests[before]).not.toHaveProperty('allow_network')
    expect(runRequests[before]).not.toHaveProperty('language')

    // Attempt 1 failed its validation, attempt 2 passed it.
    expect(await chipPhases()).toEqual(['error', 'success'])
    expect(await chipChecks()).toEqual(['0/1', '1/1'])

    // The commit, on the feature branch.
    const commit = page.getByTestId('git-commit')
    const hash = (await commit.getAttribute('data-commit')) ?? ''
    const branch = (await commit.getAttribute('data-branch')) ?? ''
    expect(hash).toMatch(/^[0-9a-f]{40}$/)
    expect(branch).toMatch(/^loopforge\//)
    expect(await commit.textContent()).toContain(hash.slice(0, 7))
    expect(await page.getByTestId('ws-branch').textContent()).toBe(branch)

    // Attempt 2 (shown): write_file with the right add(), validation passed, auditor approved.
    expect(await page.getByTestId('validation-command').getAttribute('data-passed')).toBe('true')
    expect(await page.getByTestId('validation-command').getAttribute('data-exit-code')).toBe('0')
    const call = page.getByTestId('tool-call')
    expect(await call.count()).toBe(1)
    expect(await call.getAttribute('data-name')).toBe('write_file')
    expect(await call.getAttribute('data-ok')).toBe('true')
    expect(await call.getByTestId('tool-args').textContent()).toBe('calc.py, content: 3 lines')
    expect(await page.getByTestId('audit-verdict').textContent()).toContain('Approved')
    expect(await page.getByTestId('audit-reasons').textContent()).toContain(AUDIT_REASON)
    expect(await page.getByTestId('stream-generation').textContent()).toContain(WS_FIX_SUMMARY)
    // The run area keeps clear of the sticky header when scrolled to.
    await page.locator('.run-area').evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await h.shot('workspace-run')

    // Attempt 1: the still-wrong add() and the failed check with its output.
    await page.getByTestId('iteration-chip').first().click()
    const failed = page.getByTestId('validation-command')
    expect(await failed.getAttribute('data-passed')).toBe('false')
    expect(await failed.getAttribute('data-exit-code')).toBe('1')
    expect(await page.getByTestId('validation-stderr').textContent()).toContain('add(2, 3) returned 6, expected 5')
    await page.getByTestId('tool-call').locator('summary').click()
    expect(await page.getByTestId('tool-call').locator('.tool-args pre').first().textContent()).toBe('calc.py')
    expect(await page.getByTestId('tool-call').locator('.tool-args > div:last-child pre').textContent()).toBe(CALC_WRONG)
    await page.getByTestId('validation').scrollIntoViewIfNeeded()
    await h.shot('workspace-run-attempt-1')

    // The branch holds the fix; the starting branch is untouched.
    expect(git('log', '--oneline', branch)).toContain(hash.slice(0, 7))
    expect(git('log', '-1', '--format=%s', branch).trim()).toMatch(/^loopforge: /)
    expect(git('show', `${branch}:calc.py`)).toBe(CALC_RIGHT)
    expect(git('show', 'main:calc.py')).toBe(BUGGY_CALC)
    expect(git('status', '--porcelain')).toBe('')
    // The change shown is the fix.
    const diff = await page.getByTestId('ws-diff').locator('.cm-line').allTextContents()
    expect(diff).toContain('-    return a - b')
    expect(diff).toContain('+    return a + b')

    // Its export is the patch (format py, named .patch), with no notebook.
    const menu = page.getByTestId('run-view').getByTestId('export-menu')
    await menu.locator('summary').click()
    expect(await menu.getByTestId('export-py').textContent()).toBe('Patch (.patch)')
    expect(await menu.getByTestId('export-ipynb').count()).toBe(0)
    expect(await menu.getByTestId('export-py').getAttribute('href')).toContain('format=py')
    const [download] = await Promise.all([page.waitForEvent('download'), menu.getByTestId('export-py').click()])
    expect(download.suggestedFilename()).toMatch(/\.patch$/)
    const patch = readFileSync(await download.path(), 'utf8')
    expect(patch).toContain('+    return a + b')
    await page.keyboard.press('Escape')
  })

  it('replays the workspace run from History with its validations and commit', async () => {
    await page.getByTestId('nav-history').click()
    await page.getByTestId('history-search').fill(WORKSPACE_MARKER)
    await expect.poll(() => page.getByTestId('session').count()).toBe(1)
    await page.getByTestId('session').first().click()
    const view = page.getByTestId('session-detail').getByTestId('run-view')
    await view.waitFor()
    await expect.poll(() => page.getByTestId('replay-step').textContent()).toBe('Step 1 of 2')
    // Rebuilt from the stored events: the validation of attempt 1, then attempt 2 and the commit.
    await expect.poll(() => page.getByTestId('validation-command').getAttribute('data-passed'), { timeout: 10_000 }).toBe('false')
    expect(await chipChecks()).toEqual(['0/1', '1/1'])
    expect(await page.getByTestId('git-commit').count()).toBe(1)
    await page.getByTestId('step-next').click()
    await expect.poll(() => page.getByTestId('validation-command').getAttribute('data-passed')).toBe('true')
    expect(await page.getByTestId('audit-verdict').textContent()).toContain('Approved')
    await h.shot('workspace-history')

    // Dark, on a projector.
    const theme = page.getByTestId('theme')
    for (let i = 0; i < 3 && (await theme.getAttribute('data-theme')) !== 'dark'; i++) await theme.click()
    await page.getByTestId('projector').click()
    await page.getByTestId('iteration-chip').first().click()
    await page.getByTestId('validation').scrollIntoViewIfNeeded()
    await h.shot('workspace-history-dark-projector')
    await page.getByTestId('projector').click()
    while ((await theme.getAttribute('data-theme')) !== 'system') await theme.click()
  })

  it('logged no page errors and no failed request but the refused project', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual(['POST /api/runs 400'])
  })
})
