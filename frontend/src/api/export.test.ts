import { describe, expect, it, vi } from 'vitest'
import { ApiError } from './api'
import { attachmentName, httpApi } from './http'

describe('fetchExport (web)', () => {
  it("returns the file under the server's name", async () => {
    const fetchFn = vi.fn().mockResolvedValue(
      new Response("print('hi')\n", { status: 200, headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': 'attachment; filename=greet-fake.py' } }),
    )
    const file = await httpApi(fetchFn).fetchExport!('sess 1', 'py', 'run-1')
    expect(fetchFn).toHaveBeenCalledWith('/api/sessions/sess%201/export?format=py&run=run-1', expect.objectContaining({ credentials: 'same-origin' }))
    expect(file.name).toBe('greet-fake.py')
    expect(await file.data.text()).toBe("print('hi')\n")
  })

  it('asks for the export in a language', async () => {
    const fetchFn = vi.fn().mockResolvedValue(new Response('# x\n', { status: 200, headers: { 'Content-Disposition': 'attachment; filename=x.md' } }))
    await httpApi(fetchFn).fetchExport!('s', 'md', undefined, 'pt')
    expect(fetchFn).toHaveBeenCalledWith('/api/sessions/s/export?format=md&lang=pt', expect.anything())
    expect(httpApi(fetchFn).exportURL!('s', 'html', 'r', 'pt')).toBe('/api/sessions/s/export?format=html&run=r&lang=pt')
    expect(httpApi(fetchFn).exportURL!('s', 'md', undefined, 'pt', 'America/Sao_Paulo')).toBe('/api/sessions/s/export?format=md&lang=pt&tz=America%2FSao_Paulo')
  })

  it("rejects with the server's one-line reason and status (409: no code)", async () => {
    const msg = 'export: fake run "run-1": this run produced no code to export (status error)'
    const fetchFn = vi.fn().mockResolvedValue(new Response(JSON.stringify({ error: msg }), { status: 409, headers: { 'Content-Type': 'application/json' } }))
    const err = await httpApi(fetchFn).fetchExport!('sess-1', 'py', 'run-1').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).message).toBe(msg)
    expect((err as ApiError).status).toBe(409)
  })
})

describe('attachmentName', () => {
  it('reads both forms Go writes', () => {
    expect(attachmentName('attachment; filename=a.py')).toBe('a.py')
    expect(attachmentName('attachment; filename="a b.md"')).toBe('a b.md')
    expect(attachmentName("attachment; filename*=utf-8''estruturas-%C3%A1.html")).toBe('estruturas-á.html')
    expect(attachmentName('attachment')).toBeNull()
    expect(attachmentName(null)).toBeNull()
  })
})
