/**
 * Another copy of the library in the same realm, as a second installed copy
 * or the other build (ESM or CommonJS) would be: fresh module instances of
 * `src/`, with classes of their own, so `instanceof` fails across the two.
 */
import { vi } from 'vitest';

/** A fresh instance of the main entry point. */
export async function anotherCopy(): Promise<typeof import('../src/core/index')> {
  vi.resetModules();
  return import('../src/core/index');
}
