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
      // A function that reads a variable assigned after it (a test's agent, cancelled from inside its own model) is
      // declared with let before both.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A number prints one way only; booleans, nullish values and objects in a message are still refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // It asks for `value!` where strict's no-non-null-assertion refuses `value!`: the two cannot both hold, and the
      // strict rule is the one worth keeping.
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // Many functions are async without awaiting on purpose: Wrap handlers and terminals are async generators by
      // contract (MW-012), and a tool's run or a validator is async so that what it throws becomes a rejection.
      // no-floating-promises and no-misused-promises still catch the promises that are really mishandled.
      '@typescript-eslint/require-await': 'off',
      // Errors thrown by user code pass through unchanged, as the very same object, whatever was thrown; an abort
      // rejects with the signal's reason (typed any), whatever that is.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
      // What is deleted from is JSON-shaped data (a state draft, a snapshot's record, the realm's global object): a Map
      // is not an option there.
      '@typescript-eslint/no-dynamic-delete': 'off',
      // A leading underscore marks a name that has to be there (a parameter before a used one, a drained loop's
      // event, a type parameter an `infer` has to name) but is not used.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // An internal signal, caught by the walks that throw it and never seen by a caller: an Error's stack would be
      // built for nothing.
      '@typescript-eslint/only-throw-error': [
        'error',
        {
          allow: [{ from: 'file', name: 'WalkFailure', path: 'src/agent/values/value-walk.ts' }],
        },
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
      // Tests throw what user code may throw (a string, undefined) to check that it passes through as it was.
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // Empty handlers, terminals and callbacks are test doubles that do nothing on purpose, and an empty class's
      // instance checks how a value is described.
      '@typescript-eslint/no-empty-function': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      // vitest's asymmetric matchers (expect.objectContaining, expect.any, ...) are typed `any`.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // Type tests hold lines that must not compile (under @ts-expect-error), whose types ESLint sees as unresolved,
    // and values declared only to take their type.
    files: ['**/*.test-d.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
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
