// ESLint for the frontend (`npm run lint`, run by `make test`): the recommended rules of ESLint and
// typescript-eslint, the rules of hooks with the React Compiler's, and the size of components:
// at most ~150 lines a function and two stores read (issue 26); and no import cycles. Warnings fail the lint too
// (--max-warnings 0).
import js from '@eslint/js'
import { createNodeResolver, importX } from 'eslint-plugin-import-x'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import storeReads from './eslint/store-reads.js'

export default tseslint.config(
  // Built output and generated code (wailsjs by wails, src/api/gen by the Go wire types' generator).
  { ignores: ['dist/', 'wailsjs/', 'src/api/gen/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  reactHooks.configs.flat.recommended,
  {
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // `_` names what destructuring leaves out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Components and their hooks: a newcomer reads one in a screen, and it depends on two stores
    // at most (more: split it, or reach the others by getState() in a handler). The stores'
    // own factories and the event reducer are longer lists of cases, and tests are exempt.
    files: ['src/components/**/*.{ts,tsx}', 'src/hooks/**', 'src/App.tsx'],
    ignores: ['**/*.test.*'],
    plugins: { loopforge: { rules: { 'store-reads': storeReads } } },
    rules: {
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
      'loopforge/store-reads': ['error', { max: 2 }],
    },
  },
  {
    // No import cycles in the app's code (a module's place in the layers is then well defined:
    // strings below format, types apart from the components that share them).
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['e2e/**', '*.config.ts', 'src/test/**', 'eslint/**'],
    languageOptions: { globals: { ...globals.node } },
  },
)
