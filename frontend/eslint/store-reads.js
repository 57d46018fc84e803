// loopforge/store-reads: a component or hook reads at most `max` stores (default 2).
//
// A store is read through the hooks src/stores binds to it (useRuns, useComposer, …): the rule
// counts, per component (a function named in capitals) or hook (use…), the distinct store hooks
// it calls, with those of the hooks of the same file it calls. Hooks from other files are not
// followed (a rule sees one file): keep a hook that reads stores beside its users, or count it
// by hand. Reaching a store in an event handler through useStores() (getState(), an action) is
// not a read: it subscribes to nothing, so nothing re-renders with it.
//
// Hand-written: ESLint has no rule for "hooks of one module per function", and the plugins that
// limit dependencies (import/max-dependencies) count modules, not the stores behind one import.

/** The store hooks are the use… names imported from the stores module, bar useStores. */
const STORES_MODULE = /(^|\/)stores(\/index(\.tsx?)?)?$/

function functionName(node) {
  if (node.id) return node.id.name
  const p = node.parent
  if (p?.type === 'VariableDeclarator' && p.id.type === 'Identifier') return p.id.name
  return null
}

const isComponentOrHook = (name) => /^[A-Z]/.test(name) || /^use[A-Z]/.test(name)

export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'limit the stores one component or hook reads' },
    schema: [{ type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false }],
    messages: {
      tooMany: "{{name}} reads {{count}} stores ({{stores}}); at most {{max}}: split it, or read the others where they are used (a child component, or getState() in an event handler).",
    },
  },
  create(context) {
    const max = context.options[0]?.max ?? 2
    const storeHooks = new Set()
    /** Per named component or hook: the store hooks it calls and the other hooks it calls. */
    const fns = []
    const stack = []
    const enter = (node) => {
      const name = functionName(node)
      if (!name || !isComponentOrHook(name) || stack.length) return
      const f = { node, name, stores: new Set(), hooks: new Set() }
      fns.push(f)
      stack.push(f)
    }
    const exit = (node) => {
      if (stack.length && stack[stack.length - 1].node === node) stack.pop()
    }
    return {
      ImportDeclaration(node) {
        if (!STORES_MODULE.test(node.source.value)) return
        for (const s of node.specifiers) {
          if (s.type === 'ImportSpecifier' && /^use[A-Z]/.test(s.imported.name) && s.imported.name !== 'useStores') storeHooks.add(s.local.name)
        }
      },
      FunctionDeclaration: enter,
      FunctionExpression: enter,
      ArrowFunctionExpression: enter,
      'FunctionDeclaration:exit': exit,
      'FunctionExpression:exit': exit,
      'ArrowFunctionExpression:exit': exit,
      CallExpression(node) {
        const f = stack[stack.length - 1]
        if (!f || node.callee.type !== 'Identifier') return
        const name = node.callee.name
        if (storeHooks.has(name)) f.stores.add(name.slice(3))
        else if (/^use[A-Z]/.test(name)) f.hooks.add(name)
      },
      'Program:exit'() {
        const byName = new Map(fns.map((f) => [f.name, f]))
        const reads = (f, seen = new Set()) => {
          if (seen.has(f.name)) return new Set()
          seen.add(f.name)
          const all = new Set(f.stores)
          for (const h of f.hooks) {
            const g = byName.get(h)
            if (g) for (const s of reads(g, seen)) all.add(s)
          }
          return all
        }
        for (const f of fns) {
          const all = reads(f)
          if (all.size > max) {
            context.report({ node: f.node, messageId: 'tooMany', data: { name: f.name, count: String(all.size), stores: [...all].sort().join(', '), max: String(max) } })
          }
        }
      },
    }
  },
}
