import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { Agent, createStateKey, ExecuteToolStage, InvokeModelStage } from '../../src/agent/index';

/** The fields of the error `act` throws. */
function thrown(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    const { code, phase, handler, message, cause } = error as MiddlewareError;
    return { genuine: MiddlewareError.isInstance(error), code, phase, handler, message, cause };
  }
  return 'nothing thrown';
}

describe('createStateKey', () => {
  describe('without a schema', () => {
    it('reads, writes and tells apart the property of its name in the invocation state itself', () => {
      const state: Record<string, unknown> = { other: 1 };
      const carrier = { invocationState: state };
      const Calls = createStateKey<number>('calls');
      const before = [Calls.has(carrier), Calls.get(carrier)];
      const stored = Calls.set(carrier, 2);
      expect([before, stored, Calls.has(carrier), Calls.get(carrier), state, Object.isFrozen(Calls), Calls.name]).toEqual([
        [false, undefined],
        2,
        true,
        2,
        { other: 1, calls: 2 },
        true,
        'calls',
      ]);
    });

    it('shares the value with another key of the same name, and stores __proto__ as an own property', () => {
      const state: Record<string, unknown> = {};
      createStateKey<string>('__proto__').set({ invocationState: state }, 'x');
      expect([
        Object.keys(state),
        createStateKey<string>('__proto__').get({ invocationState: state }),
        Object.getPrototypeOf(state),
      ]).toEqual([['__proto__'], 'x', Object.prototype]);
    });
  });

  describe('with a schema', () => {
    const Count = createStateKey('count', z.number().int().nonnegative());

    it('stores and answers what the schema gives back', () => {
      const Trimmed = createStateKey('name', z.string().trim());
      const state: Record<string, unknown> = {};
      const stored = Trimmed.set({ invocationState: state }, '  Ada ');
      state.name = ' Bob ';
      expect([stored, Trimmed.get({ invocationState: state }), state.name]).toEqual(['Ada', 'Bob', ' Bob ']);
    });

    it('refuses a written value with ERR_RUN_STATE_INVALID and leaves the property as it was', () => {
      const state: Record<string, unknown> = { count: 1 };
      const error = thrown(() => Count.set({ invocationState: state }, -1));
      expect([error, state]).toEqual([
        {
          genuine: true,
          code: 'ERR_RUN_STATE_INVALID',
          phase: undefined,
          handler: undefined,
          message:
            '[ERR_RUN_STATE_INVALID] The value written under the state key "count" does not fit its schema (see cause); pass a value of the key\'s type.',
          cause: expect.any(z.ZodError),
        },
        { count: 1 },
      ]);
    });

    it('refuses a read value with ERR_RUN_STATE_INVALID', () => {
      expect(thrown(() => Count.get({ invocationState: { count: 'many' } }))).toEqual({
        genuine: true,
        code: 'ERR_RUN_STATE_INVALID',
        phase: undefined,
        handler: undefined,
        message:
          '[ERR_RUN_STATE_INVALID] The value read under the state key "count" does not fit its schema (see cause); whoever stored it there should write it through the key.',
        cause: expect.any(z.ZodError),
      });
    });
  });

  describe('given bad arguments', () => {
    it.each([
      ['an empty name', () => createStateKey(''), 'name must be a non-empty string'],
      ['a schema without safeParse', () => createStateKey('a', {} as never), 'schema must have a safeParse method'],
      ['no context', () => createStateKey('a').get(undefined as never), 'key "a" was given no context with an invocationState object'],
      ['a context without state', () => createStateKey('a').set({} as never, 1), 'key "a" was given no context'],
    ])('throws ERR_INVALID_OPTIONS for %s', (_scenario, act, part) => {
      const error = thrown(act) as { message: string };
      expect({ ...error, message: error.message.includes(part) }).toEqual({
        genuine: true,
        code: 'ERR_INVALID_OPTIONS',
        phase: 'register',
        handler: 'createStateKey',
        message: true,
        cause: undefined,
      });
    });
  });

  describe('in an agent run', () => {
    it('is shared by reference by the model and tool stages and the tool itself, and the caller sees it', async () => {
      const Calls = createStateKey('calls', z.number().int());
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => {
        Calls.set(context, (Calls.get(context) ?? 0) + 1);
        return context;
      });
      const seen: unknown[] = [];
      registry.add(ExecuteToolStage.Input, (context) => {
        seen.push(Calls.get(context));
        return context;
      });
      const tool = new ScriptedTool({ name: 'lookup' });
      const invocationState: Record<string, unknown> = { calls: 10 };
      const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {} }]), textTurn('done')]);
      await new Agent({ model, registry, tools: [tool] }).invoke('Go.', { invocationState });
      expect([seen, invocationState]).toEqual([[11], { calls: 12 }]);
    });
  });
});
