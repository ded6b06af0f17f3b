import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The packed-package tier needs a build and has its own config (test/package/vitest.config.ts); the
    // integration tier needs Redis and Chromium (test/integration/vitest.config.ts, npm run test:integration); the AI SDK 7
    // tier needs Node.js 22 or later (test/ai-sdk-v4/vitest.config.ts, npm run test:ai-sdk-v4).
    exclude: [...configDefaults.exclude, 'test/package/**', 'test/integration/**', 'test/ai-sdk-v4/**'],
    setupFiles: ['test/setup.ts'],
    // Several tests start Node.js child processes (the README's examples through tsx, a run resumed in a second
    // process, the conformance command): on a loaded machine one takes longer than vitest's default 5 s.
    testTimeout: 60_000,
    typecheck: {
      include: ['test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'conformance/**/*.ts'],
      exclude: ['conformance/cli/**'],
      reporter: ['text-summary', 'text'],
      thresholds: { lines: 95, branches: 90 },
    },
  },
});
