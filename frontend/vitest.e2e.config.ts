import { defineConfig } from 'vitest/config'

// `npm run e2e`: the end-to-end tests in real headless Chromium against a
// built loopforge binary (LOOPFORGE_BIN). They share one server and one
// page, in order, so files and tests never run in parallel.
//
// The tests wait on conditions only; these limits just bound how long a
// broken build takes to fail, and are generous so that a busy two-core
// machine (`make test` next to other work) still passes.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    environment: 'node',
    fileParallelism: false,
    globalSetup: ['e2e/globalSetup.ts'],
    testTimeout: 240_000,
    hookTimeout: 180_000,
    expect: { poll: { timeout: 60_000, interval: 100 } },
    reporters: ['default'],
  },
})
