import { RuleTester } from 'eslint'
import tseslint from 'typescript-eslint'
import { afterAll, describe, it } from 'vitest'
import rule from './store-reads.js'

RuleTester.describe = describe
RuleTester.it = it
RuleTester.afterAll = afterAll

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, parserOptions: { ecmaFeatures: { jsx: true } } } })
const head = "import { useCompare, useComposer, useRuns, useStores, useWorkdir } from '../../stores'\n"

tester.run('store-reads', rule, {
  valid: [
    // Two stores, and useStores (actions in handlers) is no read.
    head + 'export function Panel() { const a = useRuns((r) => r.x); const b = useCompare((c) => c.y); const s = useStores(); return a + b }',
    // The same store many times is one store.
    head + 'function Form() { useComposer((c) => c.a); useComposer((c) => c.b); useComposer((c) => c.c); useRuns((r) => r.d); return null }',
    // Hooks of the same name from elsewhere are not store hooks.
    "import { useRuns } from './elsewhere'\nimport { useCompare, useComposer } from '../stores'\nfunction A() { useRuns(); useCompare(); useComposer(); return null }",
    // Each component counts its own reads.
    head + 'function A() { useRuns(); useCompare(); return <B /> }\nfunction B() { useComposer(); useWorkdir(); return null }',
    { code: head + 'function A() { useRuns(); useCompare(); useComposer(); return null }', options: [{ max: 3 }] },
  ],
  invalid: [
    {
      code: head + 'export function RunPanel() { useRuns(); useCompare(); useComposer(); return null }',
      errors: [{ messageId: 'tooMany', data: { name: 'RunPanel', count: '3', stores: 'Compare, Composer, Runs', max: '2' } }],
    },
    {
      // Arrow components, and reads inside nested callbacks, count.
      code: head + 'const Panel = () => { const f = () => useWorkdir(); useRuns(); useCompare(); return f }',
      errors: [{ messageId: 'tooMany' }],
    },
    {
      // A hook of the same file counts toward its caller (and itself stays within the limit).
      code: head + 'function useActivity() { useRuns(); useCompare() }\nfunction Panel() { useActivity(); useComposer(); return null }',
      errors: [{ messageId: 'tooMany', data: { name: 'Panel', count: '3', stores: 'Compare, Composer, Runs', max: '2' } }],
    },
    {
      code: head + 'function useAll() { useRuns(); useCompare(); useWorkdir() }',
      errors: [{ messageId: 'tooMany' }],
    },
  ],
})
