/** The error sites, the field picker and the hostile value the tests of the invoke's messages share. */
import type { ErrorSite } from '../../src/core/errors';
import type { MiddlewareError } from '../../src/core/errors';
export const wrap: ErrorSite = { stage: 'invokeModel', phase: 'wrap', handler: 'retry' };
export const input: ErrorSite = { stage: 'invokeModel', phase: 'input', handler: 'addTools' };
export const output: ErrorSite = { stage: 'invokeModel', phase: 'output', handler: 'redact' };
export const terminal: ErrorSite = { stage: 'invokeModel', phase: 'terminal', handler: 'terminal' };

/** The fields of an error a test compares whole. */
export function fields(error: MiddlewareError): Record<string, unknown> {
  return { code: error.code, stage: error.stage, phase: error.phase, handler: error.handler, message: error.message };
}

/** A proxy whose every read throws, as a hostile value a handler may return. */
export const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error('get trap');
    },
  },
);
