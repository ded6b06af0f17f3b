/** The check the abort tests of the invoke share. */
import { expect } from 'vitest';
import { MiddlewareError } from '../../src/core/index';

/** Checks that `error` is the ERR_ABORTED of stage "model" with the signal's reason as its cause. */
export function expectAborted(error: unknown, reason: unknown): void {
  expect(MiddlewareError.isInstance(error)).toBe(true);
  const { code, stage } = error as MiddlewareError;
  expect({ code, stage }).toEqual({ code: 'ERR_ABORTED', stage: 'model' });
  expect((error as Error).cause).toBe(reason);
}
