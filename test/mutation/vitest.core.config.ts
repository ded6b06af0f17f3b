import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** The core's own tests, which the run of the whole configured set reruns too. */
export const CORE_TESTS: readonly string[] = [
  'test/{core,util}/**/*.test.ts',
  'test/conformance.test.ts',
  'test/system-prompt.test.ts',
  'test/public-values.test.ts',
  'test/index.test.ts',
  'test/reliability/{misuse,cancellation,consumer}.test.ts',
];

/**
 * The tests a mutation run of the core alone (`npx stryker run test/mutation/core.stryker.config.json`) reruns for
 * each mutant: the core's own unit tests, the spec's cases and the in-process tests that drive the core directly.
 * The agent kit's, the adapters' and the middleware's tests stay out: the core must be proven by its own tests, and
 * those add minutes per mutant.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: [...CORE_TESTS],
    exclude: [...configDefaults.exclude],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
  },
});
