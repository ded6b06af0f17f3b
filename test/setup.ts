/**
 * Fails the run on any unhandled rejection or uncaught exception: a leaked
 * promise in the chain is a bug even when every assertion passed.
 */
import { afterAll } from 'vitest';

const problems: unknown[] = [];
const onRejection = (reason: unknown): void => {
  problems.push(reason);
};
const onException = (error: unknown): void => {
  problems.push(error);
};
process.on('unhandledRejection', onRejection);
process.on('uncaughtException', onException);

afterAll(async () => {
  // Give rejections created in the last test a turn to surface.
  await new Promise((resolve) => setTimeout(resolve, 10));
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
  if (problems.length > 0) {
    throw new Error(
      `Unhandled rejections or uncaught exceptions during this file: ${problems.map((problem) => String(problem instanceof Error ? problem.stack : problem)).join('\n---\n')}`,
    );
  }
});
