// Runs once before the end-to-end tests: drops the failure screenshots of an
// earlier run, so that test-results/failures/ shows only this run's failures.

import { rmSync } from 'node:fs'
import { join } from 'node:path'

export default function setup() {
  rmSync(join(process.cwd(), 'test-results', 'failures'), { recursive: true, force: true })
}
