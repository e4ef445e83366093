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
    // V8's parser allocates a function literal assigned straight to a property (`this.f = () =>`,
    // `o[k] = function`, `o.f ??= () =>`) in the old generation, where whatever it captures lives
    // until the next mark-compact; made per request, it kept each read alive and V8 then tenured
    // the allocations around it (issue 49: createPet at 0.67 of 0.9.0 on a server that had served
    // GETs first). Make the closure in a local, then assign it. Module-level assignments run once
    // and are not held to this. An exception says why in its eslint-disable comment.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ':function AssignmentExpression[left.type="MemberExpression"][right.type=/^(ArrowFunctionExpression|FunctionExpression)$/]',
          message:
            'A function literal assigned to a property is born in the old generation (V8): make it in a local, then assign the local.',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
)
