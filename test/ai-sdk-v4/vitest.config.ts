import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The AI SDK 7 tier: tests on `ai` 7 (installed as `ai-v7`) and its
 * `MockLanguageModelV4`. `ai` 7 supports Node.js 22 and later only, so
 * `npm run test:ai-sdk-v4` runs this tier on Node.js 24 from the `node`
 * package of npm, whatever Node.js runs `npm test`; run on an older Node.js,
 * it refuses to start rather than test a combination `ai` 7 does not support.
 */
const major = Number(process.versions.node.split('.')[0]);
if (major < 22)
  throw new Error(
    `The AI SDK 7 tier needs Node.js 22 or later (ai 7 supports no older), got ${process.version}: run npm run test:ai-sdk-v4.`,
  );

export default defineConfig({
  test: {
    root: resolve(import.meta.dirname, '..', '..'),
    include: ['test/ai-sdk-v4/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
  },
});
