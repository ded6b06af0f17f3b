import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import { Agent, CompressContextStage, ContextBudgetKey, compaction, type CompactionOptions, type Message } from '../../../src/agent/index';
import { ScriptedModel, textTurn } from '../../../src/testing/index';
import { splitPoint, transcript } from '../../../src/agent/middleware/compaction';
import { assistant, user } from '../fixtures';

const toolUse = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'toolUse', toolUseId: id, name: 'lookup', input: { id } }],
});
const toolResult = (id: string): Message => ({
  role: 'user',
  content: [{ type: 'toolResult', toolUseId: id, name: 'lookup', status: 'success', content: [{ type: 'text', text: `found ${id}` }] }],
});

describe('compaction', () => {
  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['no options', undefined],
      ['a maxTokens that is not a number', { maxTokens: '100' }],
      ['a negative maxTokens', { maxTokens: -1 }],
      ['a fractional keepRecent', { maxTokens: 10, keepRecent: 1.5 }],
      ['a countTokens that is not a function', { maxTokens: 10, countTokens: 4 }],
      ['a summarize that is not an object', { maxTokens: 10, summarize: 'briefly' }],
      ['instructions that are not a string', { maxTokens: 10, summarize: { instructions: 3 } }],
      ['a model without stream', { maxTokens: 10, summarize: { model: {} } }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      let error: unknown;
      try {
        compaction(options as CompactionOptions);
      } catch (caught) {
        error = caught;
      }
      expect([
        MiddlewareError.isInstance(error),
        (error as MiddlewareError).code,
        (error as MiddlewareError).phase,
        (error as MiddlewareError).handler,
      ]).toEqual([true, 'ERR_INVALID_OPTIONS', 'register', 'compaction']);
    });
  });

  describe('as a bundle', () => {
    it('contributes its budget and one CompressContextStage handler named compaction', () => {
      const countTokens = (messages: readonly Message[]): number => messages.length;
      const registry = new MiddlewareRegistry();
      registry.use(compaction({ maxTokens: 10, countTokens }));
      expect([
        registry.contributions(ContextBudgetKey).map((entry) => entry.value),
        registry.describe(CompressContextStage).map((entry) => [entry.name, entry.bundle]),
      ]).toEqual([[{ maxTokens: 10, countTokens }], [['compaction', 'compaction']]]);
    });
  });

  describe('with a summary model of its own', () => {
    it('asks that model and leaves the agent model to the agent calls', async () => {
      const summarizer = new ScriptedModel([textTurn('Earlier: a greeting.')]);
      const registry = new MiddlewareRegistry();
      registry.use(
        compaction({ maxTokens: 1, keepRecent: 1, countTokens: (messages) => messages.length, summarize: { model: summarizer } }),
      );
      const model = new ScriptedModel([textTurn('answer')]);
      const agent = new Agent({ model, registry, messages: [user('hello'), assistant('hi')] });
      await agent.invoke('question');
      expect([
        summarizer.calls.length,
        model.calls.length,
        agent.messages.map((message) => message.content.map((block) => (block.type === 'text' ? block.text : block.type)).join('')),
      ]).toEqual([1, 1, ['Summary of the earlier conversation:\nEarlier: a greeting.', 'question', 'answer']]);
    });
  });

  describe('when an inner layer answers something that is not a history', () => {
    it('passes it on as it is, so the stage fails with ERR_NO_RESULT', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(compaction({ maxTokens: 0 }));
      registry.add(CompressContextStage.Wrap, async function* odd() {
        yield { type: 'other' } as never;
      });
      const error = await new Agent({ model: new ScriptedModel([textTurn('ok')]), registry }).invoke('a').then(
        () => undefined,
        (caught: unknown) => caught as MiddlewareError,
      );
      expect([error?.code, error?.stage]).toEqual(['ERR_NO_RESULT', 'compressContext']);
    });
  });

  describe('with nothing old enough to summarise', () => {
    it('keeps the history and makes no summary call', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(compaction({ maxTokens: 0, keepRecent: 4 }));
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model, registry, messages: [user('a'), assistant('b')] });
      await agent.invoke('c');
      expect([model.calls.length, agent.messages.length]).toEqual([1, 4]);
    });
  });
});

describe('splitPoint', () => {
  it.each<[string, Message[], number, number]>([
    ['fewer messages than kept', [user('a')], 4, 0],
    ['keeping none', [user('a'), assistant('b')], 0, 2],
    ['a split at a plain message', [user('a'), assistant('b'), user('c')], 1, 2],
    ['a split at a tool result, moved to its tool use', [user('a'), toolUse('t1'), toolResult('t1'), assistant('d')], 2, 1],
    ['tool results in a row back to the start', [toolResult('t0'), toolResult('t1'), assistant('x')], 2, 0],
  ])('is where the kept messages start: %s', (_label, messages, keepRecent, expected) => {
    expect(splitPoint(messages, keepRecent)).toEqual(expected);
  });
});

describe('transcript', () => {
  it('writes one line per message, leaving reasoning and cache points out', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q' },
          { type: 'cachePoint', cacheType: 'default' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'text', text: 'a' },
          { type: 'toolUse', toolUseId: 't', name: 'f', input: undefined },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'toolResult',
            toolUseId: 't',
            name: 'f',
            status: 'success',
            content: [
              { type: 'json', json: [1, 'two'] },
              { type: 'text', text: 'ok' },
            ],
          },
        ],
      },
    ];
    expect(transcript(messages)).toEqual('user: q\nassistant: a [tool call f null]\nuser: [tool result success: [1,"two"] ok]');
  });
});
