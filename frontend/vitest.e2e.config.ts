import { defineConfig } from 'vitest/config'

// `npm run e2e`: the end-to-end tests in real headless Chromium against a
// built loopforge binary (LOOPFORGE_BIN). They share one server and one
// page, in order, so files and tests never run in parallel.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    environment: 'node',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
})
