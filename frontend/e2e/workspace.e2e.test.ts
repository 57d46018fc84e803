// End-to-end: the per-run network opt-in and workspace mode, with the real
// loopforge binary (`serve`), the fake OpenAI-compatible provider (which
// edits files through streamed tool calls) and a real git repository: a run
// started from the UI must end with a commit on the feature branch, checked
// with git itself. Every wait is on a condition, never on a pause; a step
// that starts a run looks only at that run's view (see harness.startRun).

import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUDIT_REASON, CALC_RIGHT, CALC_WRONG, WORKSPACE_MARKER, WS_FIX_SUMMARY } from './fakeOpenAI'
import { finalStatus, openApp, runView, screenshotOnFailure, setTheme, startRun, WAIT, type Harness } from './harness'

const BUGGY_CALC = 'def add(a, b):\n    return a - b\n'
const CHECK = 'from calc import add\n\nresult = add(2, 3)\nassert result == 5, f"add(2, 3) returned {result}, expected 5"\nprint("add(2, 3) == 5: ok")\n'

let h: Harness
let page: Page
let repo = ''
/** Every repository made, removed at the end. */
const repos: string[] = []
/** The commit the repository started from (main's only commit). */
let startCommit = ''
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
  repos.push(dir)
  writeFileSync(join(dir, 'calc.py'), BUGGY_CALC)
  writeFileSync(join(dir, 'check.py'), CHECK)
  git('init', '--quiet', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=Loopforge Test', '-c', 'user.email=test@example.invalid', 'commit', '--quiet', '-m', 'calc with a bug')
  startCommit = git('rev-parse', 'HEAD').trim()
  return dir
}

async function setWorkdir(path: string) {
  await page.getByTestId('workdir-change').click()
  await page.getByTestId('workdir-input').fill(path)
  await page.getByTestId('workdir-input').press('Enter')
  await expect.poll(() => page.getByTestId('workdir-path').getAttribute('title')).toBe(path)
}

/** Unfolds the run form if a run folded it to one line. */
async function openForm() {
  const expand = page.getByTestId('form-expand')
  if (await expand.isVisible()) await expand.click()
  await page.getByTestId('prompt').waitFor()
}

const chipPhases = (view: Locator) => view.getByTestId('iteration-chip').evaluateAll((els) => els.map((e) => e.getAttribute('data-phase')))
const chipChecks = (view: Locator) => view.getByTestId('chip-checks').allTextContents()

/** The run's final status, with its error message when it did not succeed (the assertion then says why). */
async function outcome(view: Locator): Promise<string> {
  const status = await finalStatus(view)
  if (status === 'success') return status
  const why = (await view.getByTestId('run-error').count()) ? await view.getByTestId('run-error').textContent() : ''
  return `${status}: ${why}`
}

screenshotOnFailure('workspace', () => [page])

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
  for (const dir of repos) rmSync(dir, { recursive: true, force: true })
})

describe('network opt-in and workspace mode', () => {
  it('sends allow_network for the one run it was ticked for and shows the badge on that run', async () => {
    const box = page.getByTestId('allow-network')
    expect(await box.isChecked()).toBe(false)
    await page.getByTestId('prompt').fill('Print a friendly greeting, network allowed')
    await box.check()
    const id = await startRun(page, () => page.getByTestId('run').click())
    const view = runView(page, id)
    const badge = view.getByTestId('network-badge')
    await badge.waitFor()
    expect(await badge.textContent()).toContain('Network allowed')
    expect(runRequests).toHaveLength(1)
    expect(runRequests[0]).toMatchObject({ prompt: 'Print a friendly greeting, network allowed', allow_network: true })
    // It is for this run only: the box is clear again (in the form, folded while the run goes).
    await openForm()
    await expect.poll(() => box.isChecked()).toBe(false)
    expect(await outcome(view)).toBe('success')
    await page.locator('.run-area').evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await h.shot('network-run')
  })

  it('refuses a project with uncommitted changes and says which', async () => {
    makeRepo()
    writeFileSync(join(repo, 'notes.txt'), 'not committed\n')
    await openForm()
    await page.evaluate(() => window.scrollTo(0, 0))
    // The header's path field sets the workdir.
    await setWorkdir(repo)
    await page.getByTestId('mode-workspace').check()
    await page.getByTestId('workspace-fields').waitFor()
    await expect.poll(() => page.getByTestId('ws-project-path').textContent()).toBe(repo)
    // The commands run in the sandbox, 5 minutes each by default.
    await expect.poll(() => page.getByTestId('sandbox-commands').textContent()).toBe('Validation commands: up to 5 min each, in the sandbox.')
    expect(await page.getByTestId('sandbox-limits').textContent()).toContain('1 GiB memory')
    expect(await page.getByTestId('language').count()).toBe(0)
    await page.getByTestId('ws-validate').fill('python3 check.py')
    await page.getByTestId('prompt').fill(`${WORKSPACE_MARKER}: Fix add() in calc.py so that check.py passes`)
    const refused = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/runs', { timeout: WAIT })
    await page.getByTestId('run').click()
    expect((await refused).status()).toBe(400)
    const err = page.getByTestId('start-error')
    await err.waitFor()
    const text = (await err.textContent()) ?? ''
    expect(text).toContain('uncommitted changes')
    expect(text).toContain('notes.txt')
    await h.shot('workspace-refused')
    unlinkSync(join(repo, 'notes.txt'))

    // The same form in Portuguese.
    await page.getByTestId('lang-pt').click()
    await expect.poll(() => page.getByTestId('mode').textContent()).toBe('ScriptProjeto')
    await expect.poll(() => page.getByTestId('allow-network').locator('xpath=..').textContent()).toContain('Permitir rede nesta execução')
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
    const id = await startRun(page, () => page.getByTestId('run').click())
    const view = runView(page, id)
    expect(await outcome(view)).toBe('success')
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
    expect(await chipPhases(view)).toEqual(['error', 'success'])
    expect(await chipChecks(view)).toEqual(['0/1', '1/1'])

    // The commit, on the feature branch.
    const commit = view.getByTestId('git-commit')
    await commit.waitFor()
    const hash = (await commit.getAttribute('data-commit')) ?? ''
    const branch = (await commit.getAttribute('data-branch')) ?? ''
    expect(hash).toMatch(/^[0-9a-f]{40}$/)
    expect(branch).toMatch(/^loopforge\//)
    expect(await commit.textContent()).toContain(hash.slice(0, 7))
    expect(await view.getByTestId('ws-branch').textContent()).toBe(branch)

    // What git itself says: the feature branch is one commit, the fix, on top of where the
    // repository started; main is untouched; the checkout is that commit, with nothing left over.
    expect(git('rev-parse', '--verify', `refs/heads/${branch}`).trim()).toBe(hash)
    expect(git('rev-parse', `${branch}^`).trim()).toBe(startCommit)
    expect(git('rev-list', '--count', `main..${branch}`).trim()).toBe('1')
    expect(git('rev-parse', 'main').trim()).toBe(startCommit)
    expect(git('rev-parse', 'HEAD').trim()).toBe(hash)
    expect(git('log', '--oneline', branch)).toContain(hash.slice(0, 7))
    expect(git('log', '-1', '--format=%s', branch).trim()).toMatch(/^loopforge: /)
    expect(git('diff', '--name-only', 'main', branch).trim()).toBe('calc.py')
    expect(git('show', `${branch}:calc.py`)).toBe(CALC_RIGHT)
    expect(git('show', 'main:calc.py')).toBe(BUGGY_CALC)
    expect(git('status', '--porcelain')).toBe('')

    // Attempt 2 (shown): write_file with the right add(), validation passed, auditor approved.
    expect(await view.getByTestId('validation-command').getAttribute('data-passed')).toBe('true')
    expect(await view.getByTestId('validation-command').getAttribute('data-exit-code')).toBe('0')
    const call = view.getByTestId('tool-call')
    expect(await call.count()).toBe(1)
    expect(await call.getAttribute('data-name')).toBe('write_file')
    expect(await call.getAttribute('data-ok')).toBe('true')
    expect(await call.getByTestId('tool-args').textContent()).toBe('calc.py, content: 3 lines')
    expect(await view.getByTestId('audit-verdict').textContent()).toContain('Approved')
    expect(await view.getByTestId('audit-reasons').textContent()).toContain(AUDIT_REASON)
    expect(await view.getByTestId('stream-generation').textContent()).toContain(WS_FIX_SUMMARY)
    // The run area keeps clear of the sticky header when scrolled to.
    await page.locator('.run-area').evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await h.shot('workspace-run')

    // Attempt 1: the still-wrong add() and the failed check with its output.
    await view.getByTestId('iteration-chip').first().click()
    const failed = view.getByTestId('validation-command')
    await expect.poll(() => failed.getAttribute('data-passed')).toBe('false')
    expect(await failed.getAttribute('data-exit-code')).toBe('1')
    await expect.poll(() => view.getByTestId('validation-stderr').textContent()).toContain('add(2, 3) returned 6, expected 5')
    await view.getByTestId('tool-call').locator('summary').click()
    await expect.poll(() => view.getByTestId('tool-call').locator('.tool-args pre').first().textContent()).toBe('calc.py')
    expect(await view.getByTestId('tool-call').locator('.tool-args > div:last-child pre').textContent()).toBe(CALC_WRONG)
    await view.getByTestId('validation').scrollIntoViewIfNeeded()
    await h.shot('workspace-run-attempt-1')

    // The change shown is the fix.
    await expect.poll(() => view.getByTestId('ws-diff').locator('.cm-line').allTextContents()).toEqual(
      expect.arrayContaining(['-    return a - b', '+    return a + b']),
    )

    // Its export is the patch (format py, named .patch), with no notebook.
    const menu = view.getByTestId('export-menu')
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
    await expect.poll(() => view.getByTestId('replay-step').textContent()).toBe('Step 1 of 2')
    // Rebuilt from the stored events: the validation of attempt 1, then attempt 2 and the commit.
    await expect.poll(() => view.getByTestId('validation-command').getAttribute('data-passed')).toBe('false')
    await expect.poll(() => chipChecks(view)).toEqual(['0/1', '1/1'])
    expect(await view.getByTestId('git-commit').count()).toBe(1)
    await view.getByTestId('step-next').click()
    await expect.poll(() => view.getByTestId('validation-command').getAttribute('data-passed')).toBe('true')
    await expect.poll(() => view.getByTestId('audit-verdict').textContent()).toContain('Approved')
    await h.shot('workspace-history')

    // Dark, on a projector.
    await setTheme(page, 'dark')
    await page.getByTestId('projector').click()
    await view.getByTestId('iteration-chip').first().click()
    await view.getByTestId('validation').scrollIntoViewIfNeeded()
    await h.shot('workspace-history-dark-projector')
    await page.getByTestId('projector').click()
    await setTheme(page, 'system')
  })

  it('commits the fix when a validation command touches a tracked file (git then rewrites its own index)', async () => {
    // A formatter or a build step often rewrites files it does not change. The next git
    // command then refreshes .git/index: git's own bookkeeping, not tampering with git.
    makeRepo()
    await page.getByTestId('nav-run').click()
    await setWorkdir(repo)
    await page.getByTestId('mode-workspace').check()
    await page.getByTestId('ws-validate').fill('touch check.py\npython3 check.py')
    await page.getByTestId('prompt').fill(`${WORKSPACE_MARKER}: Fix add() in calc.py; the validation touches check.py`)
    const id = await startRun(page, () => page.getByTestId('run').click())
    const view = runView(page, id)
    expect(await outcome(view)).toBe('success')
    expect(await chipChecks(view)).toEqual(['1/2', '2/2'])
    const commit = view.getByTestId('git-commit')
    await commit.waitFor()
    const hash = (await commit.getAttribute('data-commit')) ?? ''
    const branch = (await commit.getAttribute('data-branch')) ?? ''
    expect(git('rev-parse', '--verify', `refs/heads/${branch}`).trim()).toBe(hash)
    expect(git('rev-parse', `${branch}^`).trim()).toBe(startCommit)
    expect(git('diff', '--name-only', 'main', branch).trim()).toBe('calc.py')
    expect(git('show', `${branch}:calc.py`)).toBe(CALC_RIGHT)
    expect(git('status', '--porcelain')).toBe('')
  })

  it('logged no page errors and no failed request but the refused project', () => {
    expect(h.pageErrors).toEqual([])
    expect(h.failedRequests).toEqual(['POST /api/runs 400'])
  })
})
