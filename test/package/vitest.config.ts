import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The packed-package tier: runs on the tarball `npm pack` makes of the
 * current `dist/`, installed into a scratch project (`npm run test:package`
 * builds first; `npm test` runs it after its one build).
 */
export default defineConfig({
  test: {
    root: resolve(import.meta.dirname, '..', '..'),
    include: ['test/package/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/package/install.ts'],
    hookTimeout: 120_000,
    testTimeout: 60_000,
  },
});
