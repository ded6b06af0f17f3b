/**
 * CompressContextStage is one per realm too (MW-163, MW-200), under a key of its own.
 * The test that plants something under the key runs first, while this
 * file's realm has no standard stages yet (vitest runs each file in a fresh worker).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStage, MiddlewareError } from '../../src/core/index';

const holder = globalThis as unknown as Record<symbol, unknown>;

/** The agent kit as a copy loaded now sees it. */
async function loadAgentKit(): Promise<typeof import('../../src/agent/index')> {
  vi.resetModules();
  return import('../../src/agent/index');
}

/** What loading the agent kit threw: the fields MW-032 makes normative. */
async function loadError(): Promise<unknown> {
  try {
    await loadAgentKit();
    return 'loaded';
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage, phase: error.phase, startsWithCode: error.message.startsWith('[ERR_INVALID_STAGE] ') };
  }
}

const CONTEXT_KEY = Symbol.for('staged-middleware.agent.context-stages.v1');

describe('CompressContextStage', () => {
  describe('when its key already holds something else', () => {
    afterEach(() => {
      delete holder[CONTEXT_KEY];
    });

    it.each<[string, () => unknown]>([
      ['a string', () => 'stages'],
      ['a genuine stage under another name', () => ({ compressContext: createStage('compress') })],
    ])('fails loading with ERR_INVALID_STAGE on the compression stage when it is %s', async (_name, planted) => {
      Object.defineProperty(globalThis, CONTEXT_KEY, { value: planted(), configurable: true });
      expect(await loadError()).toEqual({ code: 'ERR_INVALID_STAGE', stage: 'compressContext', phase: undefined, startsWithCode: true });
    });
  });

  describe('loaded by two copies of the package', () => {
    it('is the very object the first copy created, held frozen under a key that cannot be replaced', async () => {
      const first = await loadAgentKit();
      const second = await loadAgentKit();
      const descriptor = Object.getOwnPropertyDescriptor(globalThis, CONTEXT_KEY);
      expect({
        same: second.CompressContextStage === first.CompressContextStage,
        name: first.CompressContextStage.name,
        writable: descriptor?.writable,
        configurable: descriptor?.configurable,
        frozen: Object.isFrozen(descriptor?.value),
        stages: descriptor?.value,
      }).toEqual({
        same: true,
        name: 'compressContext',
        writable: false,
        configurable: false,
        frozen: true,
        stages: { compressContext: first.CompressContextStage },
      });
    });
  });
});
