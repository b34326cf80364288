// ESLint: typescript-eslint's type-checked recommended rules over the whole repository, no-floating-promises
// among them (a promise nobody awaits or catches is how a failure goes unseen). `npm run lint`; .ci/run runs it.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist.*/', 'data/', 'test-artifacts/', 'bench/mqttload/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // a JSX handler may be async: Preact ignores what it returns, and the handler catches its own errors
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { attributes: false } },
      ],
      // `cond && act()` and `cond ? a() : b()` as statements are house style
      '@typescript-eslint/no-unused-expressions': [
        'error',
        { allowShortCircuit: true, allowTernary: true },
      ],
      // a catch passes on what it caught, whatever it is
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // an async function without await is how a synchronous implementation of a promise-returning port turns
      // its throws into rejections, as the port's callers expect
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed parameters and rest siblings are the house's way to say "deliberately unused"
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // A reply whose test names no type for its body is `Loose` (test/_support/service.ts), read as its assertions
    // read it: the rules that follow an `any` through the code are off in tests, and only there. Writing `any`
    // itself is not (no-explicit-any stays on)
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
)
