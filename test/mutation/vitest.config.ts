import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { CORE_TESTS } from './vitest.core.config';

/**
 * The tests the mutation run (`npm run test:mutation`) reruns for each mutant: the unit tests of the core's folders
 * and the other in-process tests that drive the core directly, and for the files beyond the core that copy, parse or
 * validate outside data, the in-process tests of the agent kit, the AI SDK adapter, the middleware and the
 * conformance protocol, their generated-input tests among them. Tests that start child processes, read the README or
 * need a build stay out; they add minutes per mutant and kill nothing the unit tests miss.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: [
      ...CORE_TESTS,
      'test/agent/**/*.test.ts',
      'test/ai-sdk/**/*.test.ts',
      'test/middleware/**/*.test.ts',
      'test/conformance/{protocol,protocol-lines,serve-protocol}.test.ts',
    ],
    exclude: [...configDefaults.exclude, 'test/agent/durable-run.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
  },
});
