// ESLint for the frontend (`npm run lint`, run by `make test`): the recommended rules of ESLint and
// typescript-eslint, and the rules of hooks. Warnings fail the lint too (--max-warnings 0).
import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

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
    files: ['e2e/**', '*.config.ts', 'src/test/**'],
    languageOptions: { globals: { ...globals.node } },
  },
)
