// Starts `loopforge serve` on a random loopback port with a private
// LOOPFORGE_HOME whose loopforge.yml points the "fake" provider at a fake
// OpenAI-compatible server, and reads the tokenised URL it prints.

import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export interface Serve {
  url: string
  home: string
  output(): string
  /** Waits until the output matches re (a deadline, not a pause) and returns the match. */
  waitOutput(re: RegExp): Promise<RegExpExecArray>
  stop(): Promise<void>
}

export function loopforgeBinary(): string {
  const bin = resolve(process.env.LOOPFORGE_BIN ?? '../build/bin/loopforge-e2e')
  if (!existsSync(bin)) {
    throw new Error(`no loopforge binary at ${bin}: build one (go build -o build/bin/loopforge-e2e .) or set LOOPFORGE_BIN`)
  }
  return bin
}

export interface ServeOptions {
  structured?: boolean
  /** The command line (default `serve --addr 127.0.0.1:0`), e.g. `class --listen 127.0.0.1:0`. */
  args?: string[]
  /** loopforge.yml instead of the one with the fake provider's profiles (the first-run test: none ready). */
  yml?: string
}

export async function startServe(fakeBaseURL: string, opts: ServeOptions = {}): Promise<Serve> {
  const bin = loopforgeBinary()
  const home = mkdtempSync(join(tmpdir(), 'loopforge-e2e-home-'))
  const workdir = mkdtempSync(join(tmpdir(), 'loopforge-e2e-wd-'))
  const structured = opts.structured === false ? '\n    structured: false' : ''
  writeFileSync(
    join(home, 'loopforge.yml'),
    opts.yml ??
      `provider: fake
max_iterations: 3
reflect: true
timeout: 20s
providers:
  quick:
    kind: openai
    model: quick-model
    base_url: ${fakeBaseURL}
    api_key_env: ""
  never:
    kind: openai
    model: never-model
    base_url: ${fakeBaseURL}
    api_key_env: ""
  fake:
    kind: openai
    model: fake-model
    base_url: ${fakeBaseURL}
    api_key_env: ""${structured}
  needs-key:
    kind: openai
    model: keyed-model
    base_url: ${fakeBaseURL}
    api_key_env: LOOPFORGE_E2E_MISSING_KEY
  offline:
    kind: openai
    model: nowhere-model
    base_url: http://127.0.0.1:9/v1
    api_key_env: LOOPFORGE_E2E_KEY
`,
  )
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    LOOPFORGE_HOME: home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    // A keyless local endpoint is ready only when a server answers; with a
    // (dummy) key "offline" counts as ready, so a run shows the network error.
    LOOPFORGE_E2E_KEY: 'e2e-dummy-key',
  }
  const args = opts.args ?? ['serve', '--addr', '127.0.0.1:0']
  const child: ChildProcess = spawn(bin, args, { cwd: workdir, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const watchers = new Set<() => void>()
  const url = await new Promise<string>((resolvePromise, reject) => {
    // A deadline, not a pause: it only bounds how long a broken binary takes to fail.
    const timer = setTimeout(() => reject(new Error(`loopforge serve printed no URL within 60s:\n${out}`)), 60_000)
    const onData = (b: Buffer) => {
      out += b.toString()
      for (const w of [...watchers]) w()
      const m = /https?:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolvePromise(m[0])
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`loopforge ${args[0]} exited (${code}) before printing its URL:\n${out}`))
    })
  })
  return {
    url,
    home,
    output: () => out,
    waitOutput: (re) =>
      new Promise<RegExpExecArray>((resolveMatch, reject) => {
        const timer = setTimeout(() => {
          watchers.delete(check)
          reject(new Error(`loopforge never printed ${String(re)} within 60s:\n${out}`))
        }, 60_000)
        function check() {
          const m = re.exec(out)
          if (!m) return
          clearTimeout(timer)
          watchers.delete(check)
          resolveMatch(m)
        }
        watchers.add(check)
        check()
      }),
    stop: async () => {
      if (child.exitCode == null && child.signalCode == null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        // A deadline to shut down cleanly (not a pause: it ends as soon as the process exits), then SIGKILL.
        let timer: NodeJS.Timeout | undefined
        const late = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), 10_000)))])
        clearTimeout(timer)
        if (late) {
          child.kill('SIGKILL')
          await exited
        }
      }
      rmSync(home, { recursive: true, force: true })
      rmSync(workdir, { recursive: true, force: true })
    },
  }
}
