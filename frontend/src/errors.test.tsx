// @vitest-environment happy-dom
// Errors from the backend carry a stable code and parameters (wire.ErrorBody);
// the UI words them in its own language, with the backend's English text
// only for a code it does not know.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { App } from './App'
import { ApiError, errorMessage, toApiError } from './api'
import * as ev from './api/gen/event'
import { httpApi } from './api/http'
import { RunBanner } from './components/run/RunBanner'
import { createStores } from './stores'
import { newRun } from './stores/runModel'
import { execNote, noticeText, setLanguage, strings } from './strings'
import { fakeApi, memoryStorage } from './test/fakeApi'

afterEach(() => {
  cleanup()
  setLanguage('en')
})

const missingKey = () =>
  new ApiError('openai: no API key: set OPENAI_API_KEY in the environment or in a .env file', 400, 'provider.missing_key', {
    provider: 'openai',
    env: 'OPENAI_API_KEY',
  })

describe('error words', () => {
  it('picks the text by code in the language in use', () => {
    setLanguage('pt')
    expect(errorMessage(missingKey())).toBe('openai: sem chave de API. Defina OPENAI_API_KEY no ambiente ou em um arquivo .env.')
    setLanguage('en')
    expect(errorMessage(missingKey())).toBe('openai: no API key. Set OPENAI_API_KEY in the environment or in a .env file.')
  })

  it('says how long a refused prompt is and what the limit is, in both languages', () => {
    const long = new ApiError('invalid request: the prompt is too long: …', 400, 'request.prompt_too_long', { bytes: '300000', chars: '150000', max: '262144' })
    const big = new ApiError('the request body is larger than 2031616 bytes', 413, 'request.too_large', { max: '2031616' })
    setLanguage('pt')
    expect(errorMessage(long)).toBe('O prompt é longo demais: 300.000 bytes (150.000 caracteres); uma execução aceita no máximo 256 KiB (262.144 bytes).')
    expect(errorMessage(big)).toBe('O pedido passa de 1,9 MiB, o máximo que o loopforge aceita.')
    setLanguage('en')
    expect(errorMessage(long)).toBe('The prompt is too long: 300,000 bytes (150,000 characters); a run takes at most 256 KiB (262,144 bytes).')
    expect(errorMessage(big)).toBe('The request is larger than 1.9 MiB, the most loopforge accepts.')
  })

  it("falls back to the backend's text for an unknown code, and to the message of anything else", () => {
    setLanguage('pt')
    expect(errorMessage(new ApiError('class: quota used up', 429, 'class.some_new_code', {}))).toBe('class: quota used up')
    expect(errorMessage(new ApiError('plain', 500))).toBe('plain')
    expect(errorMessage(new Error('boom'))).toBe('boom')
    expect(errorMessage('a string')).toBe('a string')
  })

  it('has the same codes in both languages', () => {
    setLanguage('en')
    const en = Object.keys(strings.errors).sort()
    setLanguage('pt')
    expect(Object.keys(strings.errors).sort()).toEqual(en)
    expect(en.length).toBeGreaterThan(50)
  })

  // The sandbox's words come as data (backend/event/exec.go, generated into
  // gen/event.ts): every status, protection, outcome and note has words in
  // every language, each different from the code itself where it is prose.
  it.each(['en', 'pt'] as const)('words every execution status, protection, outcome and note in %s', (lang) => {
    setLanguage(lang)
    const w = strings.live.exec
    const values = (prefix: string) =>
      Object.entries(ev)
        .filter(([name, v]) => name.startsWith(prefix) && typeof v === 'string')
        .map(([, v]) => v as string)
    const tables: [string, Record<string, unknown>][] = [
      ['ExecStatus', w.status],
      ['Protection', w.protections],
      ['Protection', w.protectionHints],
      ['Outcome', w.outcome],
      ['Note', w.notes],
      ['Notice', strings.live.notices],
    ]
    for (const [prefix, table] of tables) {
      const codes = values(prefix)
      expect(codes.length, prefix).toBeGreaterThan(4)
      expect(Object.keys(table).sort(), prefix).toEqual([...codes].sort())
    }
    const p = { exit: '1', signal: 'killed', detail: 'ValueError: boom', ms: '30000', seconds: '35', bytes: '8388608', controllers: 'pids,memory,cpu', limit: '128', n: '3', max: '8', name: 'fig.png' }
    for (const code of values('Outcome')) expect(w.outcome[code](p), code).not.toMatch(/undefined|NaN/)
    for (const code of values('Note')) expect(w.notes[code](p), code).not.toMatch(/undefined|NaN/)
    const q = { provider: 'gemini-api', reason: 'rate_limit', status: '429', wait_ms: '4000', retry: '1', max: '3', note: 'no_network', detail: 'x', path: '/w', branch: 'b', from: 'claude-x-5', to: 'claude-y-4', n: '2', asked: '5' }
    for (const code of values('Notice')) expect(strings.live.notices[code](q), code).not.toMatch(/undefined|NaN/)
  })

  it('says where no file or network isolation exists at all, instead of Linux advice', () => {
    const on = (code: string, os?: string) => execNote({ code, params: os ? { os } : {} })
    setLanguage('en')
    expect(on('no_files', 'windows')).toBe('No file-system isolation: the code can read and change your files (loopforge has none on Windows).')
    expect(on('no_network', 'macos')).toBe('No network isolation: the code can reach the network (loopforge has none on macOS).')
    expect(on('no_network')).toBe('No network isolation: the code can reach the network (install bubblewrap).')
    setLanguage('pt')
    expect(on('no_files', 'windows')).toBe('Sem isolamento do sistema de arquivos: o código pode ler e alterar seus arquivos (o loopforge não tem nenhum no Windows).')
    expect(on('no_network')).toBe('Sem isolamento de rede: o código pode acessar a rede (instale o bubblewrap).')
    setLanguage('en')
  })

  it("words loopforge's notices by code, and shows a provider's own as it came", () => {
    const retry = { level: 'warn', message: 'gemini-api: rate limited (HTTP 429), retrying in 4s (retry 1/3)', code: 'retry',
      params: { provider: 'gemini-api', reason: 'rate_limit', status: '429', wait_ms: '4000', retry: '1', max: '3' } }
    setLanguage('pt')
    expect(noticeText(retry)).toBe('gemini-api: pedidos demais (HTTP 429), tentando de novo em 4 s (tentativa 1/3)')
    expect(noticeText({ message: 'codex: update available' })).toBe('codex: update available')
    expect(noticeText({ message: 'sandbox: …', code: 'sandbox', params: { note: 'network_allowed' } })).toBe('Sandbox: Acesso à rede permitido nesta execução.')
    setLanguage('en')
    expect(noticeText(retry)).toBe('gemini-api: rate limited (HTTP 429), retrying in 4 s (retry 1/3)')
  })

  it("words a class's refusals in the UI's language, numbers and times included", () => {
    const at = '2025-03-01T17:05:00Z'
    const local = (lang: string) => new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' }).format(new Date(at))
    const refusals = [
      new ApiError('2 runs in the last hour is the limit; the next one is possible at 14:05', 429, 'class.quota.hourly', { limit: '2', retry_at: at }),
      new ApiError('Your token budget (10,000) is used up', 429, 'class.quota.tokens', { limit: '10000' }),
      new ApiError('Your cost budget ($0.50) is used up', 429, 'class.quota.cost', { limit: '0.50' }),
      new ApiError('The class is paused by the instructor', 409, 'class.paused', {}),
      new ApiError('not allowed: provider "x" is not allowed in this class', 403, 'class.student.provider', { provider: 'x' }),
    ]
    setLanguage('pt')
    expect(refusals.map(errorMessage)).toEqual([
      `O limite é de 2 execuções por hora; a próxima será possível às ${local('pt-BR')}.`,
      'Seu orçamento de tokens (10.000) acabou.',
      'Seu orçamento de custo (US$ 0,50) acabou.',
      'A turma está pausada pelo professor: por enquanto não é possível iniciar execuções.',
      'O provedor x não é permitido nesta turma.',
    ])
    setLanguage('en')
    expect(refusals.map(errorMessage)).toEqual([
      `2 runs in the last hour is the limit; the next one is possible at ${local('en')}.`,
      'Your token budget (10,000) is used up.',
      'Your cost budget (US$0.50) is used up.',
      'The class is paused by the instructor: starting runs is off for now.',
      'Provider x is not allowed in this class.',
    ])
  })

  it('reads the code and parameters of a failed web request', async () => {
    const body = { error: 'the prompt is empty', code: 'request.prompt_empty', params: {} }
    const fetchFn = vi.fn().mockResolvedValue(new Response(JSON.stringify(body), { status: 400, headers: { 'Content-Type': 'application/json' } }))
    const err = await httpApi(fetchFn)
      .startRun({ prompt: ' ' } as never)
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).code).toBe('request.prompt_empty')
    expect((err as ApiError).status).toBe(400)
    setLanguage('pt')
    expect(errorMessage(err)).toBe('O prompt está vazio.')
  })

  it('reads the body a desktop binding rejects with', () => {
    const e = toApiError({ error: '/x does not exist', code: 'workdir.missing', params: { path: '/x' } })
    expect(e.code).toBe('workdir.missing')
    setLanguage('pt')
    expect(errorMessage(e)).toBe('/x não existe.')
    expect(toApiError('a plain rejection').message).toBe('a plain rejection')
  })
})

describe('the app in Portuguese', () => {
  it('shows a refused run in Portuguese', async () => {
    const api = fakeApi()
    api.startRun.mockRejectedValue(missingKey())
    const stores = createStores(api, { storage: memoryStorage(), schedule: (fn) => fn(), lang: 'pt' })
    render(<App stores={stores} />)
    await screen.findByTestId('provider-fake')
    fireEvent.change(screen.getByTestId('prompt'), { target: { value: 'Olá' } })
    fireEvent.click(screen.getByTestId('run'))
    const alert = await screen.findByTestId('start-error')
    expect(alert.textContent).toBe('A execução não começou: openai: sem chave de API. Defina OPENAI_API_KEY no ambiente ou em um arquivo .env.')
    // The store keeps the code and parameters, not the words: the error on
    // screen follows a switch of language, and back.
    expect(stores.runs.getState().startError).toMatchObject({ code: 'provider.missing_key', params: { env: 'OPENAI_API_KEY' } })
    fireEvent.click(screen.getByTestId('lang-en'))
    await waitFor(() =>
      expect(screen.getByTestId('start-error').textContent).toBe('The run did not start: openai: no API key. Set OPENAI_API_KEY in the environment or in a .env file.'),
    )
    fireEvent.click(screen.getByTestId('lang-pt'))
    await waitFor(() => expect(screen.getByTestId('start-error').textContent).toContain('sem chave de API'))
  })
})

describe('RunBanner', () => {
  const failed = (errorCode: string, errorParams: Record<string, string>, error: string) =>
    newRun({ runId: 'r', status: 'error', error, errorCode, errorParams })

  it("introduces only the provider's own failures with “The provider said”", () => {
    setLanguage('pt')
    render(<RunBanner run={failed('provider.auth', { provider: 'openai', status: '401', env: 'OPENAI_API_KEY', message: 'Incorrect API key' }, 'openai: the API key was rejected (HTTP 401)')} />)
    expect(screen.getByTestId('run-error').textContent).toBe(
      'O provedor disse: openai: a chave de API foi recusada (HTTP 401); verifique OPENAI_API_KEY. Ele disse: Incorrect API key',
    )
    cleanup()
    render(<RunBanner run={failed('sandbox.unavailable', { detail: 'bwrap: no user namespaces' }, 'cannot run generated code: bwrap: no user namespaces')} />)
    const text = screen.getByTestId('run-error').textContent ?? ''
    expect(text).not.toContain('provedor')
    expect(text).toContain('O código gerado não pode ser executado nesta máquina')
  })

  it('shows a run recorded before codes as it was recorded, without naming the provider', () => {
    render(<RunBanner run={failed('', {}, 'something old')} />)
    expect(screen.getByTestId('run-error').textContent).toBe('something old')
  })
})
