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
      // `_`-prefixed parameters and rest siblings are the house's way to say "deliberately unused"
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
)
