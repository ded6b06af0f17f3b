/**
 * restateStepRunner over a context that records what the runner asks of it:
 * which Restate calls a step and a wait become. That Restate journals and
 * replays them is shown against a real server in test/integration/restate.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  restateStepRunner,
  WAITS_STATE_KEY,
  type AwakeableWait,
  type RestateContext,
  type RestateWorkflowContext,
} from '../../src/durable-restate/index';
import { caught, fields } from '../assertions';

/** A context that runs steps at once, answers waits with `answers`, and records every call. */
function recordingContext(answers: Readonly<Record<string, unknown>>): { context: RestateWorkflowContext; calls: unknown[] } {
  const calls: unknown[] = [];
  const context: RestateWorkflowContext = {
    request: () => ({ id: 'inv_1' }),
    async run<T>(name: string, action: () => Promise<T>) {
      calls.push(['run', name]);
      return await action();
    },
    awakeable<T>() {
      calls.push(['awakeable']);
      return { id: 'awk_1', promise: Promise.resolve(answers.awk_1 as T) };
    },
    promise<T>(name: string) {
      return {
        get: () => {
          calls.push(['promise.get', name]);
          return Promise.resolve(answers[name] as T);
        },
        resolve: () => Promise.resolve(),
      };
    },
    get: () => Promise.resolve(null),
    set(name: string, value: unknown) {
      calls.push(['set', name, structuredClone(value)]);
    },
  };
  return { context, calls };
}

/** The parts of `context` a service's context has: no durable promises, no state. */
function serviceContext(context: RestateWorkflowContext): RestateContext {
  return {
    request: () => context.request(),
    run: (name, action) => context.run(name, action),
    awakeable: () => context.awakeable(),
  };
}

describe('restateStepRunner', () => {
  describe('in a workflow', () => {
    it('takes the invocation id as the run id and runs a step as ctx.run under its name, as attempt 1', async () => {
      const { context, calls } = recordingContext({});
      const runner = restateStepRunner(context);
      const attempts: unknown[] = [];
      const value = await runner.run('invokeModel:1', (attempt) => {
        attempts.push(attempt);
        return Promise.resolve({ text: 'hi' });
      });
      expect({ runId: runner.runId, value, attempts, calls }).toEqual({
        runId: 'inv_1',
        value: { text: 'hi' },
        attempts: [{ attempt: 1 }],
        calls: [['run', 'invokeModel:1']],
      });
    });

    it('waits on the durable promise named by the wait, listing the request in the state while it waits', async () => {
      const { context, calls } = recordingContext({ 'executeTool:t1:approve': 'yes' });
      const request = { id: 'executeTool:t1:approve', name: 'approve', reason: 'refund' };
      const value = await restateStepRunner(context).wait('executeTool:t1:approve', request);
      expect({ value, calls }).toEqual({
        value: 'yes',
        calls: [
          ['set', WAITS_STATE_KEY, { 'executeTool:t1:approve': request }],
          ['promise.get', 'executeTool:t1:approve'],
          ['set', WAITS_STATE_KEY, {}],
        ],
      });
    });
  });

  describe('outside a workflow', () => {
    it('waits on an awakeable whose id publishWait tells, in a step of its own', async () => {
      const { context, calls } = recordingContext({ awk_1: 'no' });
      const published: AwakeableWait[] = [];
      const runner = restateStepRunner(serviceContext(context), {
        publishWait: (wait) => {
          published.push(wait);
          return Promise.resolve();
        },
      });
      const value = await runner.wait('agentStream:approve', { id: 'agentStream:approve' });
      expect({ value, published, calls }).toEqual({
        value: 'no',
        published: [{ name: 'agentStream:approve', awakeableId: 'awk_1', request: { id: 'agentStream:approve' } }],
        calls: [['awakeable'], ['run', 'agentStream:approve:awakeable']],
      });
    });

    it('refuses a context without durable promises when no publishWait is given', () => {
      const { context } = recordingContext({});
      expect(fields(caught(() => restateStepRunner(serviceContext(context))))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: undefined,
        phase: 'register',
        handler: 'restateStepRunner',
      });
    });
  });

  describe('given something other than a Restate context', () => {
    it.each([null, {}, { run: () => undefined }])('refuses %j, naming what it needs', (context) => {
      const error = caught(() => restateStepRunner(context as unknown as RestateWorkflowContext));
      expect([fields(error), error.message]).toEqual([
        { code: 'ERR_INVALID_OPTIONS', stage: undefined, phase: 'register', handler: 'restateStepRunner' },
        expect.stringContaining('[ERR_INVALID_OPTIONS] restateStepRunner(): context must be the context of a Restate handler (ctx), got '),
      ]);
    });
  });
});
