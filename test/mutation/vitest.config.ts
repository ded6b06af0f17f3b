import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The tests the mutation run (`npm run test:mutation`) reruns for each mutant of the core: the unit tests of the
 * stage, registry, invoke, errors and util folders and the other in-process tests that drive the core directly.
 * Tests that start child processes, read the README or need a build stay out; they add minutes per mutant and kill
 * nothing the unit tests miss.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: [
      'test/{stage,registry,invoke,errors,util}/**/*.test.ts',
      'test/conformance.test.ts',
      'test/system-prompt.test.ts',
      'test/public-values.test.ts',
      'test/index.test.ts',
      'test/reliability/{misuse,cancellation,consumer}.test.ts',
    ],
    exclude: [...configDefaults.exclude],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
  },
});
