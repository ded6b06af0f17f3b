/**
 * runAgentInRestate over a workflow context whose steps run at once, and
 * the shared handlers of agentWorkflowHandlers over a context whose durable
 * promises settle as Restate's do (a second resolution refused with 409);
 * the whole workflow runs against a real server in test/integration/restate.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index';
import {
  agentWorkflowHandlers,
  runAgentInRestate,
  WAITS_STATE_KEY,
  type AgentWorkflowOptions,
  type RestateWorkflowContext,
  type RestateWorkflowSharedContext,
} from '../../src/durable-restate/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
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

describe('runAgentInRestate', () => {
  describe('in a workflow whose steps run at once', () => {
    it("runs every model and tool call as a ctx.run step, gives tools the invocation's idempotency key, and returns JSON", async () => {
      const steps: string[] = [];
      const context: RestateWorkflowContext = {
        request: () => ({ id: 'inv_7' }),
        async run<T>(name: string, action: () => Promise<T>) {
          steps.push(name);
          return await action();
        },
        awakeable: () => {
          throw new Error('no awakeable in a workflow');
        },
        promise: () => {
          throw new Error('no wait in this run');
        },
        get: () => Promise.resolve(null),
        set: () => undefined,
      };
      const keys: unknown[] = [];
      const clock = new ScriptedTool({
        name: 'clock',
        respond: (_input, toolContext) => {
          keys.push(toolContext.idempotencyKey);
          return 'noon';
        },
      });
      const model = new ScriptedModel([toolUseTurn([{ name: 'clock', input: {}, toolUseId: 'use-1' }]), textTurn('It is noon.')]);
      const run = await runAgentInRestate(context, new Agent({ model, tools: [clock] }), 'What time is it?');
      expect({
        steps,
        keys,
        runId: run.runId,
        stopReason: run.result.stopReason,
        messages: JSON.parse(JSON.stringify(run.messages)) as unknown,
      }).toEqual({
        steps: ['invokeModel:1', 'executeTool:1:use-1', 'invokeModel:2', 'agentStream:end'],
        keys: ['inv_7:use-1'],
        runId: 'inv_7',
        stopReason: 'endTurn',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'What time is it?' }] },
          { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'use-1', name: 'clock', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'toolResult', toolUseId: 'use-1', name: 'clock', status: 'success', content: [{ type: 'text', text: 'noon' }] },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'It is noon.' }] },
        ],
      });
    });
  });
});

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
