// End-to-end: a profile whose model the provider no longer offers. A run
// ends with the model's name and the models the key can use (asked of the
// same API); the provider picker's Models list shows them, a pick runs the
// provider with the picked model, and the run succeeds. The fake server
// here speaks OpenAI's wire format: GET /v1/models, and chat completions
// that answer 404 model_not_found for "gone-model". Screenshots:
// test-results/screenshots/models-missing.png and models-picked.png.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appReady, CHROMIUM, CHROMIUM_ARGS, finalStatus, newContext, runView, screenshotOnFailure, SHOTS, startRun } from './harness'
import { startServe, type Serve } from './serve'

let fake: Server
let fakeURL = ''
/** The model of each chat completion asked for, in order. */
const asked: string[] = []
let serve: Serve
let browser: Browser
let page: Page
const pageErrors: string[] = []

screenshotOnFailure('models', () => [page])

function startFake(): Promise<void> {
  fake = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'other-model', object: 'model', owned_by: 'system' }, { id: 'new-model', object: 'model', owned_by: 'system' }] }))
        return
      }
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        const model = (JSON.parse(body) as { model: string }).model
        asked.push(model)
        if (model === 'gone-model') {
          res.writeHead(404, { 'Content-Type': 'application/json' })
          res.end(JSON.stringify({ error: { message: 'The model `gone-model` does not exist or you do not have access to it.', type: 'invalid_request_error', param: null, code: 'model_not_found' } }))
          return
        }
        res.writeHead(200, { 'Content-Type': 'text/event-stream' })
        const chunk = (delta: object, finish: string | null) =>
          `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
        res.write(chunk({ role: 'assistant', content: "```python\nprint('hello from " + model + "')\n```\n" }, null))
        res.write(chunk({}, 'stop'))
        res.end('data: [DONE]\n\n')
        return
      }
      res.writeHead(404).end()
    })
  })
  return new Promise((resolve) =>
    fake.listen(0, '127.0.0.1', () => {
      fakeURL = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`
      resolve()
    }),
  )
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  await startFake()
  serve = await startServe('', {
    yml: `provider: old
max_iterations: 2
reflect: false
timeout: 20s
providers:
  old:
    kind: openai
    model: gone-model
    base_url: ${fakeURL}
    api_key_env: ""
    structured: false
`,
  })
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
  const context = await newContext(browser, { viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  page.on('pageerror', (e) => pageErrors.push(String(e)))
  await page.goto(serve.url)
  await appReady(page)
})

afterAll(async () => {
  await browser?.close()
  await serve?.stop()
  await new Promise((r) => fake?.close(r))
})

async function run(prompt: string): Promise<string> {
  const expand = page.getByTestId('form-expand')
  if (await expand.isVisible()) await expand.click()
  await page.getByTestId('prompt').fill(prompt)
  return startRun(page, () => page.getByTestId('run').click())
}

describe('models that exist', () => {
  it('ends a run on a missing model with its name and the models the key can use', async () => {
    const view = runView(page, await run('Print a greeting'))
    expect(await finalStatus(view)).toBe('error')
    const err = view.getByTestId('run-error')
    expect(await err.getAttribute('data-code')).toBe('provider.model_not_found')
    const text = (await err.textContent()) ?? ''
    expect(text).toContain('the model gone-model does not exist or is no longer offered to this key (HTTP 404)')
    expect(text).toContain('Models this key can use: new-model, other-model.')
    expect(asked).toEqual(['gone-model'])
    await page.screenshot({ path: join(SHOTS, 'models-missing.png'), fullPage: false })
  })

  it('lists the models in the picker, and a picked one runs', async () => {
    const expand = page.getByTestId('form-expand')
    if (await expand.isVisible()) await expand.click()
    const row = page.getByTestId('provider-old')
    await row.getByRole('button', { name: 'Models' }).click()
    const list = page.getByTestId('models-old')
    await expect.poll(() => list.getByRole('status').textContent()).toBe('2 models this key can use')
    await list.getByRole('button', { name: 'new-model' }).click()
    await expect.poll(() => page.getByTestId('provider-model-old').textContent()).toBe('new-model')
    await page.screenshot({ path: join(SHOTS, 'models-picked.png'), fullPage: false })

    const view = runView(page, await run('Print a greeting'))
    expect(await finalStatus(view)).toBe('success')
    expect(asked).toEqual(['gone-model', 'new-model'])
    expect(pageErrors).toEqual([])
  })
})
