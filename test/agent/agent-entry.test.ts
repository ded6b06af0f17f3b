import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { Agent, type Message } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { assistant, user } from './fixtures';

/** A user message whose second block refers back to the message. */
function cyclicMessage(): Message {
  const message = {
    role: 'user',
    content: [
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'again' },
    ],
  } as { role: 'user'; content: Record<string, unknown>[] };
  (message.content[1] as Record<string, unknown>).loop = message;
  return message as unknown as Message;
}

/** A user message whose second block has a getter that throws `failure`. */
function messageWithThrowingGetter(failure: Error): Message {
  const block = { type: 'text', text: 'again' };
  Object.defineProperty(block, 'broken', {
    enumerable: true,
    get() {
      throw failure;
    },
  });
  return { role: 'user', content: [{ type: 'text', text: 'hi' }, block as { type: 'text'; text: string }] };
}

/** A frozen message whose `role` getter throws `failure`: taken as it is by the copy, refused when checked. */
function frozenMessageWithThrowingRole(failure: Error): Message {
  return Object.freeze(
    Object.defineProperty({ content: Object.freeze([]) }, 'role', {
      enumerable: true,
      get() {
        throw failure;
      },
    }),
  ) as unknown as Message;
}

/** What the test compares of a rejection: its code and stage, and whether its message names the part. */
async function rejection(run: Promise<unknown>, part: string): Promise<unknown> {
  const error = (await run.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as MiddlewareError | undefined;
  return {
    isMiddlewareError: MiddlewareError.isInstance(error),
    code: error?.code,
    stage: error?.stage,
    namesPart: error?.message.includes(part),
  };
}

const invalidNaming = { isMiddlewareError: true, code: 'ERR_INVALID_OPTIONS', stage: 'agentStream', namesPart: true };

/** A Proxy whose every trap throws `failure`. */
function throwingProxy(failure: Error): object {
  const fail = (): never => {
    throw failure;
  };
  return new Proxy({}, { get: fail, has: fail, ownKeys: fail, getOwnPropertyDescriptor: fail, getPrototypeOf: fail, isExtensible: fail });
}

describe('Agent', () => {
  describe('a run whose input or options cannot be read', () => {
    const failure = new Error('getter failed');

    it.each<[string, () => Parameters<Agent['invoke']>, string]>([
      ['an input message that contains itself', () => [[cyclicMessage()]], 'input[0].content[1].loop refers back to input[0]'],
      ['a single input message that contains itself', () => [cyclicMessage()], 'input.content[1].loop refers back to input'],
      [
        'an input block whose getter throws',
        () => [[messageWithThrowingGetter(failure)]],
        'reading input[0].content[1].broken threw: getter failed',
      ],
      ['options that are a throwing Proxy', () => ['go', throwingProxy(failure)], 'reading options.signal threw: getter failed'],
      [
        'a signal whose aborted getter throws',
        () => ['go', { signal: throwingProxy(failure) as AbortSignal }],
        'reading options.signal.aborted threw',
      ],
      [
        'an invocationState getter that throws',
        () => [
          'go',
          Object.defineProperty({}, 'invocationState', {
            enumerable: true,
            get() {
              throw failure;
            },
          }),
        ],
        'reading options.invocationState threw',
      ],
      [
        'interrupt responses that are a throwing Proxy',
        () => [undefined, { interruptResponses: throwingProxy(failure) as Record<string, unknown> }],
        'reading options.interruptResponses threw',
      ],
      [
        'a frozen input message whose role getter throws',
        () => [[user('fine'), frozenMessageWithThrowingRole(failure)]],
        'reading input[1] threw: getter failed',
      ],
      [
        'a single frozen input message whose role getter throws',
        () => [frozenMessageWithThrowingRole(failure)],
        'reading input threw: getter failed',
      ],
    ])('rejects %s with ERR_INVALID_OPTIONS naming the part, and the agent stays usable', async (_label, makeArguments, part) => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model, messages: [user('old')] });
      expect(await rejection(agent.invoke(...makeArguments()), part)).toEqual(invalidNaming);
      const next = await agent.invoke('next');
      expect([next.stopReason, agent.messages, model.calls.length]).toEqual(['endTurn', [user('old'), user('next'), assistant('ok')], 1]);
    });

    it('keeps the thrown value as the cause of a read that threw', async () => {
      const agent = new Agent({ model: new ScriptedModel([]) });
      const error = (await agent.invoke([messageWithThrowingGetter(failure)]).catch((caught: unknown) => caught)) as MiddlewareError;
      expect(error.cause).toBe(failure);
    });

    it('rejects a resume whose responses have a throwing getter, and the halted run can still be resumed', async () => {
      const tool = new ScriptedTool({ name: 'pay', respond: (_input, context) => context.interrupt({ name: 'confirm' }).response });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'pay', input: {}, toolUseId: 'p1' }]), textTurn('paid')]),
        tools: [tool],
      });
      await agent.invoke('pay');
      const responses = Object.defineProperty({}, 'executeTool:p1:confirm', {
        enumerable: true,
        get() {
          throw failure;
        },
      });
      expect(await rejection(agent.resume(responses), 'reading responses["executeTool:p1:confirm"] threw')).toEqual(invalidNaming);
      expect((await agent.resume({ 'executeTool:p1:confirm': 'yes' })).stopReason).toEqual('endTurn');
    });

    it('cancels the run when the caller signal is aborted but its reason cannot be read', async () => {
      const signal = {
        aborted: true,
        get reason(): never {
          throw failure;
        },
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
      };
      const model = new ScriptedModel([textTurn('ok')]);
      const result = await new Agent({ model }).invoke('go', { signal: signal as unknown as AbortSignal });
      expect([result.stopReason, model.calls.length]).toEqual(['cancelled', 0]);
    });

    it('rejects a signal without removeEventListener before the run starts, and the agent stays usable', async () => {
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]) });
      const fake = { aborted: false, addEventListener: () => undefined };
      expect(
        await rejection(agent.invoke('go', { signal: fake as unknown as AbortSignal }), 'options.signal must be an AbortSignal'),
      ).toEqual(invalidNaming);
      expect((await agent.invoke('go')).stopReason).toEqual('endTurn');
    });

    it('rejects a signal whose addEventListener throws before the run starts, and the agent stays usable', async () => {
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]) });
      const fake = {
        aborted: false,
        addEventListener: () => {
          throw failure;
        },
        removeEventListener: () => undefined,
      };
      expect(
        await rejection(
          agent.invoke('go', { signal: fake as unknown as AbortSignal }),
          'options.signal.addEventListener() threw: getter failed',
        ),
      ).toEqual(invalidNaming);
      expect((await agent.invoke('go')).stopReason).toEqual('endTurn');
    });

    it('ends a run whose signal cannot remove its listener, and the agent stays usable', async () => {
      const controller = new AbortController();
      const signal = {
        aborted: false,
        addEventListener: controller.signal.addEventListener.bind(controller.signal),
        removeEventListener: () => {
          throw failure;
        },
      };
      const agent = new Agent({ model: new ScriptedModel([textTurn('one'), textTurn('two')]) });
      expect((await agent.invoke('go', { signal: signal as unknown as AbortSignal })).stopReason).toEqual('endTurn');
      expect((await agent.invoke('again')).stopReason).toEqual('endTurn');
    });
  });

  describe('new Agent() with options that cannot be copied', () => {
    const cyclic = (): Record<string, unknown> => {
      const value: Record<string, unknown> = { a: 1 };
      value.self = value;
      return value;
    };

    const model = new ScriptedModel([]);

    it.each<[string, () => unknown, string]>([
      [
        'initial messages that contain themselves',
        () => ({ model, messages: [cyclicMessage()] }),
        'options.messages[0].content[1].loop refers back to options.messages[0]',
      ],
      [
        'a model state that contains itself',
        () => ({ model, modelState: cyclic() }),
        'options.modelState.self refers back to options.modelState',
      ],
      [
        'system prompt blocks that contain themselves',
        () => ({ model, systemPrompt: [{ text: 'a', more: cyclic() }] }),
        'options.systemPrompt[0].more.self refers back to options.systemPrompt[0].more',
      ],
      [
        'a tool spec that contains itself',
        () => ({ model, tools: [{ spec: { name: 'x', description: '', inputSchema: cyclic() }, run: () => 'ok' }] }),
        'options.tools[0].spec.inputSchema.self refers back to options.tools[0].spec.inputSchema',
      ],
      [
        'a tool choice that contains itself',
        () => ({ model, toolChoice: { type: 'auto', extra: cyclic() } }),
        'options.toolChoice.extra.self refers back to options.toolChoice.extra',
      ],
      ['options that are a throwing Proxy', () => throwingProxy(new Error('no')), 'reading options.model threw: no'],
      [
        'a frozen initial message whose role getter throws',
        () => ({ model, messages: [frozenMessageWithThrowingRole(new Error('no'))] }),
        'reading options.messages[0] threw: no',
      ],
    ])('rejects %s with ERR_INVALID_OPTIONS naming the part', (_label, makeOptions, part) => {
      let error: MiddlewareError | undefined;
      try {
        new Agent(makeOptions() as never);
      } catch (caught) {
        error = caught as MiddlewareError;
      }
      expect({ code: error?.code, stage: error?.stage, namesPart: error?.message.includes(part) }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        namesPart: true,
      });
    });

    it('rejects an assigned model state that cannot be read, keeping the old one', () => {
      const agent = new Agent({ model: new ScriptedModel([]), modelState: { kept: true } });
      expect(() => (agent.modelState = throwingProxy(new Error('no')) as Record<string, unknown>)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', message: expect.stringContaining('reading agent.modelState threw: no') }),
      );
      expect(agent.modelState).toEqual({ kept: true });
    });

    it('takes a class instance as model state as a frozen plain object of its own properties', () => {
      class Counter {
        count = 2;
        get double(): number {
          return this.count * 2;
        }
      }
      const agent = new Agent({ model: new ScriptedModel([]), modelState: new Counter() as never });
      agent.modelState = new Counter() as never;
      const state = agent.modelState;
      expect([Object.getPrototypeOf(state) === Object.prototype, Object.isFrozen(state), state]).toEqual([true, true, { count: 2 }]);
    });

    it('rejects an assigned model state that contains itself, keeping the old one', () => {
      const agent = new Agent({ model: new ScriptedModel([]), modelState: { kept: true } });
      const value: Record<string, unknown> = {};
      value.self = value;
      expect(() => (agent.modelState = value)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          message: expect.stringContaining('agent.modelState.self refers back to agent.modelState'),
        }),
      );
      expect(agent.modelState).toEqual({ kept: true });
    });
  });
});
