import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type Middleware } from '../../src/core/index';
import {
  Agent,
  AgentStreamStage,
  CompressContextStage,
  ContextBudgetKey,
  ExecuteToolStage,
  History,
  InvokeModelStage,
  compressTerminal,
  estimateTokens,
  type CompressContextContext,
  type ContextBudget,
  type ContextCompressedEvent,
  type Message,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { assistant, collect, user } from './fixtures';

/** A bundle contributing one budget. */
function budget(value: unknown): Middleware {
  return { name: 'budget', setup: (registrar) => void registrar.provide(ContextBudgetKey, value as ContextBudget) };
}

const perMessage = (messages: readonly Message[]): number => messages.length;

/** The code, stage and message-naming of a rejection. */
async function rejection(run: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await run;
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage };
  }
  return { code: 'none' };
}

describe('estimateTokens', () => {
  describe('for each message', () => {
    it.each<[string, Message[], number]>([
      ['no message', [], 0],
      // {"role":"user","content":[{"type":"text","text":"Hi"}]} is 55 characters.
      ['a short user message', [user('Hi')], 14],
      ['a message of 56 characters, a multiple of four', [user('Hi!')], 14],
      ['a message of 57 characters, one more', [user('Hi!!')], 15],
      ['two messages, each rounded up on its own', [user('Hi'), user('Hi')], 28],
    ])('sums its JSON length divided by four, rounded up: %s', (_label, messages, expected) => {
      expect(estimateTokens(messages)).toEqual(expected);
    });

    it('measures a message that is not frozen again each time', () => {
      const message = { role: 'user', content: [{ type: 'text', text: 'Hi' }] } as {
        role: 'user';
        content: { type: 'text'; text: string }[];
      };
      const first = estimateTokens([message]);
      message.content[0] = { type: 'text', text: 'Hi'.repeat(40) };
      expect([first, estimateTokens([message])]).toEqual([14, 34]);
    });
  });
});

describe('compressTerminal', () => {
  it('yields one frozen result holding the context messages themselves', async () => {
    const messages = Object.freeze([user('a')]);
    const events = await collect(compressTerminal({ messages } as CompressContextContext, undefined as never) as never);
    expect([events, Object.isFrozen(events[0]), (events[0] as { messages: unknown }).messages === messages]).toEqual([
      [{ type: 'contextResult', messages }],
      true,
      true,
    ]);
  });
});

describe('History.replace', () => {
  it('keeps messages it already holds and freezes new ones, inside a frozen array too', () => {
    const history = new History([user('old')]);
    const kept = history.messages[0] as Message;
    const added = { role: 'user', content: [{ type: 'text', text: 'new' }] } as Message;
    history.replace(Object.freeze([added, kept]));
    expect([
      history.messages[1] === kept,
      Object.isFrozen(history.messages[0]),
      Object.isFrozen(added),
      Object.isFrozen(history.messages),
    ]).toEqual([true, true, false, true]);
  });
});

describe('Agent', () => {
  describe('with a budget that is not one', () => {
    it.each<[string, unknown]>([
      ['no maxTokens', {}],
      ['a negative maxTokens', { maxTokens: -1 }],
      ['a countTokens that is not a function', { maxTokens: 3, countTokens: 'words' }],
    ])('is refused by new Agent() and refuses a run given it among its bundles: %s', async (_label, value) => {
      const registry = new MiddlewareRegistry();
      registry.use(budget(value));
      let error: unknown;
      try {
        new Agent({ model: new ScriptedModel([]), registry });
      } catch (caught) {
        error = caught;
      }
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]) });
      expect([
        (error as MiddlewareError).code,
        (error as MiddlewareError).stage,
        (error as Error).message.includes('bundle "budget"'),
      ]).toEqual(['ERR_INVALID_OPTIONS', 'compressContext', true]);
      expect(await rejection(agent.invoke('a', { use: [budget(value)] }))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'compressContext',
      });
    });
  });

  describe('with a counter that does not count', () => {
    it.each([Number.NaN, -1, '3'])('rejects the run when it returns %s', async (count) => {
      const registry = new MiddlewareRegistry();
      registry.use(budget({ maxTokens: 1, countTokens: () => count }));
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), registry });
      expect([await rejection(agent.invoke('a')), agent.messages]).toEqual([{ code: 'ERR_INVALID_OPTIONS', stage: 'compressContext' }, []]);
    });
  });

  describe('with a compression that answers something else than a history', () => {
    it.each<[string, unknown]>([
      ['a result without messages', { type: 'contextResult' }],
      ['a message of another role', { type: 'contextResult', messages: [{ role: 'system', content: [] }] }],
    ])('rejects the run for %s', async (_label, answer) => {
      const registry = new MiddlewareRegistry();
      registry.use(budget({ maxTokens: 0 }));
      registry.add(CompressContextStage.Output, (result) => result.replace(answer as never));
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), registry });
      expect(await rejection(agent.invoke('a'))).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'compressContext' });
    });
  });

  describe('compressing a history', () => {
    it('yields a frozen event with the replaced history itself, and the next model call sees the new one', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(budget({ maxTokens: 2, countTokens: perMessage }));
      registry.add(CompressContextStage.Wrap, async function* keepLast(context) {
        yield { type: 'contextResult', messages: [user(`summary of ${context.messages.length - 1}`), context.messages.at(-1) as Message] };
      });
      const model = new ScriptedModel([textTurn('two'), textTurn('four')]);
      const agent = new Agent({ model, registry });
      await agent.invoke('one');
      const before = agent.messages;
      const events = await collect(agent.stream('three'));
      const compressed = events.find((event): event is ContextCompressedEvent => event.type === 'contextCompressed');
      expect([
        compressed?.replaced === compressed?.replaced && compressed?.replaced.length,
        Object.isFrozen(compressed),
        compressed?.messages,
        model.calls[1]?.request.messages,
        agent.messages,
      ]).toEqual([
        3,
        true,
        [user('summary of 2'), user('three')],
        [user('summary of 2'), user('three')],
        [user('summary of 2'), user('three'), assistant('four')],
      ]);
      expect(compressed?.replaced.slice(0, 2)).toEqual(before);
      expect(compressed?.replaced[0]).toBe(before[0]);
    });

    it('is not done before the tool calls of a resumed turn, only before model calls', async () => {
      const registry = new MiddlewareRegistry();
      const counted: number[] = [];
      registry.use(
        budget({ maxTokens: 100, countTokens: (messages: readonly Message[]) => (counted.push(messages.length), messages.length) }),
      );
      registry.add(ExecuteToolStage.Wrap, async function* approve(context, next) {
        context.interrupt({ name: 'approve' });
        yield* next();
      });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'rm', input: {}, toolUseId: 'r1' }]), textTurn('done')]),
        registry,
        tools: [new ScriptedTool({ name: 'rm' })],
      });
      await agent.invoke('go');
      await agent.resume({ 'executeTool:r1:approve': true });
      expect(counted).toEqual([1, 3]);
    });

    it('is seen by CompressContextStage handlers with the run view and the agent system prompt as blocks', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(budget({ maxTokens: 0 }));
      const seen: unknown[] = [];
      registry.add(
        CompressContextStage.Input,
        (context) => (
          seen.push([
            context.systemPrompt,
            context.toolSpecs.map((spec) => spec.name),
            context.agent?.name,
            Object.isFrozen(context),
            context.tokens,
          ]),
          context
        ),
      );
      const agent = new Agent({
        name: 'shop',
        systemPrompt: 'Be brief.',
        model: new ScriptedModel([textTurn('ok')]),
        registry,
        tools: [new ScriptedTool({ name: 'lookup' })],
      });
      await agent.invoke('Hi');
      expect(seen).toEqual([[[{ text: 'Be brief.' }], ['lookup'], 'shop', true, 14]]);
    });

    it('keeps its events out of the run, and AgentStreamStage handlers see the compressed event', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(budget({ maxTokens: 0 }));
      registry.add(CompressContextStage.Wrap, async function* keepLast(context) {
        yield { type: 'contextResult', messages: context.messages.slice(-1) };
      });
      const types: string[] = [];
      registry.add(AgentStreamStage.Wrap, async function* watch(_context, next) {
        for await (const event of next()) {
          types.push(event.type);
          yield event;
        }
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), messages: [user('old'), assistant('older')], registry });
      await agent.invoke('new');
      expect(types).toEqual(['contextCompressed', 'messageStart', 'textDelta', 'messageStop', 'modelResult', 'agentResult']);
    });

    it('is invoked with the run signal', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(budget({ maxTokens: 0 }));
      const signals: boolean[] = [];
      registry.add(CompressContextStage.Wrap, async function* look(_context, next, run) {
        signals.push(run.signal.aborted);
        yield* next();
      });
      registry.add(InvokeModelStage.Wrap, async function* passThrough(_context, next) {
        yield* next();
      });
      await new Agent({ model: new ScriptedModel([textTurn('ok')]), registry }).invoke('a');
      expect(signals).toEqual([false]);
    });
  });
});
