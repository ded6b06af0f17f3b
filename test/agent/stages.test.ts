/**
 * The standard stages are one per realm (MW-200): every copy of the package
 * exports the very same three stage objects. A second copy is a fresh module
 * instance (`vi.resetModules()` and a dynamic import), as the other module
 * format or a second installed copy is.
 *
 * The tests that plant something under the key run first, while this file's
 * realm has no standard stages yet (vitest runs each file in a fresh worker).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createStage, MiddlewareError } from '../../src/core/index';

const KEY = Symbol.for('staged-middleware.agent.standard-stages.v1');
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

describe('InvokeModelStage, ExecuteToolStage, AgentStreamStage', () => {
  describe('when the key already holds something else', () => {
    beforeAll(() => {
      expect(Object.getOwnPropertyDescriptor(globalThis, KEY)).toBeUndefined();
    });

    afterEach(() => {
      delete holder[KEY];
    });

    const hand = (name: string): unknown => ({ name, Input: {}, Wrap: {}, Output: {} });
    it.each<[string, () => unknown, string]>([
      ['a string', () => 'stages', 'invokeModel'],
      ['an empty object', () => ({}), 'invokeModel'],
      [
        'hand-made look-alikes',
        () => ({ invokeModel: hand('invokeModel'), executeTool: hand('executeTool'), agentStream: hand('agentStream') }),
        'invokeModel',
      ],
      [
        'a spread copy of a genuine stage',
        () => ({
          invokeModel: { ...createStage('invokeModel') },
          executeTool: createStage('executeTool'),
          agentStream: createStage('agentStream'),
        }),
        'invokeModel',
      ],
      [
        'a genuine stage under the wrong name',
        () => ({
          invokeModel: createStage('invokeModel'),
          executeTool: createStage('agentStream'),
          agentStream: createStage('agentStream'),
        }),
        'executeTool',
      ],
      [
        'two of the three stages',
        () => ({ invokeModel: createStage('invokeModel'), executeTool: createStage('executeTool') }),
        'agentStream',
      ],
    ])('fails loading with ERR_INVALID_STAGE when it is %s', async (_name, planted, stage) => {
      Object.defineProperty(globalThis, KEY, { value: planted(), configurable: true });
      expect(await loadError()).toEqual({ code: 'ERR_INVALID_STAGE', stage, phase: undefined, startsWithCode: true });
    });

    it('takes three genuine stages with the standard names as its own', async () => {
      const planted = {
        invokeModel: createStage('invokeModel'),
        executeTool: createStage('executeTool'),
        agentStream: createStage('agentStream'),
      };
      Object.defineProperty(globalThis, KEY, { value: planted, configurable: true });
      const kit = await loadAgentKit();
      expect([
        kit.InvokeModelStage === planted.invokeModel,
        kit.ExecuteToolStage === planted.executeTool,
        kit.AgentStreamStage === planted.agentStream,
      ]).toEqual([true, true, true]);
    });
  });

  describe('loaded by two copies of the package', () => {
    it('are the very objects the first copy created', async () => {
      const first = await loadAgentKit();
      const second = await loadAgentKit();
      expect({
        freshCopy: second.Agent !== first.Agent,
        same: [
          second.InvokeModelStage === first.InvokeModelStage,
          second.ExecuteToolStage === first.ExecuteToolStage,
          second.AgentStreamStage === first.AgentStreamStage,
        ],
      }).toEqual({ freshCopy: true, same: [true, true, true] });
    });

    it('run a handler registered through one copy in an agent of the other', async () => {
      const first = await loadAgentKit();
      const second = await loadAgentKit();
      const { MiddlewareRegistry } = await import('../../src/core/index');
      const registry = new MiddlewareRegistry();
      const seen: string[] = [];
      registry.add(first.InvokeModelStage.Input, function redact(context) {
        seen.push(`redact ${context.messages.length}`);
        return context;
      });
      const { ScriptedModel, textTurn } = await import('../../src/testing/index');
      const agent = new second.Agent({ model: new ScriptedModel([textTurn('hi')]), registry });
      const result = await agent.invoke('hello');
      expect([result.stopReason, seen]).toEqual(['endTurn', ['redact 1']]);
    });
  });

  describe('once published', () => {
    it('are held frozen under a key that is neither writable nor configurable', async () => {
      const kit = await loadAgentKit();
      const descriptor = Object.getOwnPropertyDescriptor(globalThis, KEY);
      expect({
        writable: descriptor?.writable,
        configurable: descriptor?.configurable,
        enumerable: descriptor?.enumerable,
        frozen: Object.isFrozen(descriptor?.value),
        stages: descriptor?.value,
      }).toEqual({
        writable: false,
        configurable: false,
        enumerable: false,
        frozen: true,
        stages: { invokeModel: kit.InvokeModelStage, executeTool: kit.ExecuteToolStage, agentStream: kit.AgentStreamStage },
      });
    });

    it('cannot be replaced by an assignment', async () => {
      const kit = await loadAgentKit();
      expect(() => {
        holder[KEY] = { invokeModel: createStage('invokeModel') };
      }).toThrow(TypeError);
      expect((await loadAgentKit()).InvokeModelStage).toBe(kit.InvokeModelStage);
    });
  });
});
