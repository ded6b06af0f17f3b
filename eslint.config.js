// @ts-check
// ESLint for the whole repository, type-checked through the repository's tsconfig.json (the project service finds it
// for each file). Formatting is Prettier's alone: eslint-config-prettier, last, turns off every rule it would fight.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Code that is not shipped: tests, the benchmark, the examples, scripts, the build's plugins and the tools' configs. */
const unshipped = ['test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts', 'scripts/**/*.ts', 'build/**/*.ts', '*.config.ts'];

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.strictTypeChecked, ...tseslint.configs.stylisticTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A number prints one way only; booleans, nullish values and objects in a message are still refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // It asks for `value!` where strict's no-non-null-assertion refuses `value!`: the two cannot both hold, and the
      // strict rule is the one worth keeping.
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // Wrap handlers and terminals are async generators by contract (MW-012), and many need no `await`: the core
      // rule exempts async generators, the typed one does not.
      '@typescript-eslint/require-await': 'off',
      'require-await': 'error',
      // Errors thrown by user code pass through unchanged, as the very same object, whatever was thrown.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // A leading underscore marks a name that has to be there (a parameter before a used one, a drained loop's
      // event, a type parameter an `infer` has to name) but is not used.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // Each error table adds its codes to StagedMiddlewareErrorCodes by declaration merging, which takes an interface.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    files: unshipped,
    rules: {
      // Tests write handlers that fail before their first event (the error is what they exercise).
      'require-yield': 'off',
      // Empty handlers, terminals and callbacks are test doubles that do nothing on purpose.
      '@typescript-eslint/no-empty-function': 'off',
      // vitest's asymmetric matchers (expect.objectContaining, expect.any, ...) are typed `any`.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // JavaScript (this file and the packed package's consumers in test/package/consumer) is in no tsconfig: it gets
    // ESLint's recommended set without type information.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  prettier,
);
