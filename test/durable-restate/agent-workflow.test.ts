/**
 * The shared handlers of agentWorkflowHandlers over a context whose durable
 * promises settle as Restate's do (a second resolution refused with 409);
 * the whole workflow runs against a real server in test/integration/restate.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index';
import {
  agentWorkflowHandlers,
  WAITS_STATE_KEY,
  type AgentWorkflowOptions,
  type RestateWorkflowSharedContext,
} from '../../src/durable-restate/index';
import { ScriptedModel } from '../../src/testing/index';
import { caught, failure, fields } from '../assertions';

/** A shared context whose durable promises take one value each, as Restate's do, and whose state holds `state`. */
function sharedContext(state: Readonly<Record<string, unknown>>): { context: RestateWorkflowSharedContext; values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  const context: RestateWorkflowSharedContext = {
    promise<T>(name: string) {
      return {
        get: () => Promise.resolve(values.get(name) as T),
        resolve(value?: T) {
          if (values.has(name)) return Promise.reject(Object.assign(new Error('promise was already completed'), { code: 409 }));
          values.set(name, value);
          return Promise.resolve();
        },
      };
    },
    get: <T>(name: string) => Promise.resolve((state[name] ?? null) as T | null),
  };
  return { context, values };
}

const handlers = agentWorkflowHandlers({ agent: () => new Agent({ model: new ScriptedModel([]) }) });

describe('agentWorkflowHandlers', () => {
  describe('answer', () => {
    it('resolves the durable promise of the wait, and the first answer stays when a second one comes', async () => {
      const { context, values } = sharedContext({});
      const first = await handlers.answer(context, { name: 'executeTool:t1:approve', value: 'yes' });
      const second = await handlers.answer(context, { name: 'executeTool:t1:approve', value: 'no' });
      expect({ first, second, values: [...values] }).toEqual({
        first: { accepted: true },
        second: { accepted: false },
        values: [['executeTool:t1:approve', 'yes']],
      });
    });

    it('passes any other refusal of Restate through unchanged', async () => {
      const refusal = new Error('ingress down');
      const context: RestateWorkflowSharedContext = {
        promise: () => ({ get: () => Promise.reject(refusal), resolve: () => Promise.reject(refusal) }),
        get: () => Promise.resolve(null),
      };
      expect(await failure(handlers.answer(context, { name: 'w', value: 1 }))).toBe(refusal);
    });

    it('refuses an answer without the name of a wait', async () => {
      const error = await failure(handlers.answer(sharedContext({}).context, { value: 'yes' } as never));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: undefined, phase: 'register', handler: 'answer' });
    });
  });

  describe('waits', () => {
    it('lists the waits the run keeps in its state, and none before it waits', async () => {
      const request = { id: 'executeTool:t1:approve', name: 'approve', reason: null };
      expect([
        await handlers.waits(sharedContext({ [WAITS_STATE_KEY]: { 'executeTool:t1:approve': request } }).context),
        await handlers.waits(sharedContext({}).context),
      ]).toEqual([{ 'executeTool:t1:approve': request }, {}]);
    });
  });

  describe('given options without an agent function', () => {
    it('refuses them, naming the option', () => {
      const error = caught(() => agentWorkflowHandlers({ agent: 'support' } as unknown as AgentWorkflowOptions));
      expect([fields(error), error.message]).toEqual([
        { code: 'ERR_INVALID_OPTIONS', stage: undefined, phase: 'register', handler: 'agentWorkflowHandlers' },
        '[ERR_INVALID_OPTIONS] agentWorkflowHandlers(): options.agent must be a function that builds the agent, got the string "support".',
      ]);
    });
  });
});
