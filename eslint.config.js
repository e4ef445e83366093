// @ts-check
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'scratch/',
      'coverage/',
      'examples/*/dist/',
      // Written against types a test generates first (test/generated-clients.test.ts).
      'test/generated-clients/',
      // Consumer projects: they import the package by name, which resolves only where it is
      // installed; the consumer matrix type-checks and runs them there (scripts/consumer/).
      'examples/commonjs/',
      'examples/jest/',
      'examples/jest-commonjs/',
      'examples/playwright/',
      'examples/vitest/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'bin/*.js', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // Handlers are async for a uniform Operation type even when they only throw.
      '@typescript-eslint/require-await': 'off',
      // A parameter that a signature needs and the function does not read starts with _.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
)
