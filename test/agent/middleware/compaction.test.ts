import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import fc from 'fast-check';
import {
  Agent,
  CompactionStateKey,
  CompressContextStage,
  ContextBudgetKey,
  compaction,
  TurnStage,
  type CompactionOptions,
  type CompactionState,
  type Message,
} from '../../../src/agent/index';
import { failingTurn, ScriptedModel, textTurn } from '../../../src/testing/index';
import { capSummary, fallbackSummary, previousSummary, splitPoint, transcript } from '../../../src/agent/middleware/compaction-summary';
import { readCompactionState } from '../../../src/agent/middleware/compaction-state';
import { assistant, user } from '../fixtures';
import { caught } from '../../assertions';

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
      ['a keepRecentTokens of 0', { maxTokens: 10, keepRecentTokens: 0 }],
      ['a fractional minMessages', { maxTokens: 10, minMessages: 1.5 }],
      ['a maxSummaryTokens that is not a number', { maxTokens: 10, maxSummaryTokens: '500' }],
      ['a negative pruneToolOutputs', { maxTokens: 10, pruneToolOutputs: -1 }],
      ['a carrySummary that is not a boolean', { maxTokens: 10, carrySummary: 'yes' }],
      ['a fallback that is not a boolean', { maxTokens: 10, fallback: 1 }],
      ['a maxFailures of 0', { maxTokens: 10, maxFailures: 0 }],
      ['a minSavings of 1', { maxTokens: 10, minSavings: 1 }],
      ['a negative minSavings', { maxTokens: 10, minSavings: -0.1 }],
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

  describe('with an option it does not know', () => {
    it('throws ERR_INVALID_OPTIONS naming the option', () => {
      const error = caught(() => compaction({ maxTokens: 10, keepRecnt: 2 } as CompactionOptions));
      expect([error.code, error.handler, error.phase, error.message.includes('unknown option keepRecnt')]).toEqual([
        'ERR_INVALID_OPTIONS',
        'compaction',
        'register',
        true,
      ]);
    });

    it('throws ERR_INVALID_OPTIONS naming an unknown key of summarize', () => {
      const error = caught(() => compaction({ maxTokens: 10, summarize: { prompt: 'Sum up.' } as never }));
      expect([error.code, error.handler, error.message.includes('unknown option prompt')]).toEqual([
        'ERR_INVALID_OPTIONS',
        'compaction',
        true,
      ]);
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

const countMessages = (messages: readonly Message[]): number => messages.length;

describe('splitPoint', () => {
  it.each<[string, Message[], number, number]>([
    ['fewer messages than kept', [user('a')], 4, 0],
    ['keeping none', [user('a'), assistant('b')], 0, 2],
    ['a split at a plain message', [user('a'), assistant('b'), user('c')], 1, 2],
    ['a split at a tool result, moved to its tool use', [user('a'), toolUse('t1'), toolResult('t1'), assistant('d')], 2, 1],
    ['tool results in a row back to the start', [toolResult('t0'), toolResult('t1'), assistant('x')], 2, 0],
  ])('is where the kept messages start: %s', (_label, messages, keepRecent, expected) => {
    expect(splitPoint(messages, { keepRecent, keepRecentTokens: undefined, countTokens: countMessages })).toEqual(expected);
  });

  it.each<[string, number, number, number]>([
    ['a token allowance the tail fits three messages into', 1, 3, 3],
    ['a token allowance smaller than keepRecent keeps keepRecent', 4, 2, 2],
    ['a token allowance larger than the history keeps it all', 1, 100, 0],
  ])('keeps more messages while the tail fits keepRecentTokens: %s', (_label, keepRecent, keepRecentTokens, expected) => {
    const messages = [user('a'), assistant('b'), user('c'), assistant('d'), user('e'), assistant('f')];
    expect(splitPoint(messages, { keepRecent, keepRecentTokens, countTokens: countMessages })).toEqual(expected);
  });

  it('moves a token-sized split back to the tool use of a kept tool result', () => {
    const messages = [user('a'), toolUse('t1'), toolResult('t1'), assistant('d')];
    expect(splitPoint(messages, { keepRecent: 1, keepRecentTokens: 2, countTokens: countMessages })).toEqual(1);
  });
});

describe('capSummary', () => {
  it.each<[string, string, number | undefined, string]>([
    ['no cap', 'abcdefghij', undefined, 'abcdefghij'],
    ['a summary within the cap', 'abcdefgh', 2, 'abcdefgh'],
    ['a summary over the cap, cut to 4 code units a token', 'abcdefghij', 2, 'abcdefgh'],
    ['a cut that would part a surrogate pair', 'abcdefg\u{1F600}', 2, 'abcdefg'],
  ])('cuts the summary to its cap: %s', (_label, summary, maxTokens, expected) => {
    expect(capSummary(summary, maxTokens)).toEqual(expected);
  });
});

describe('transcript with pruneToolOutputs', () => {
  it('cuts a longer tool output and says how long it was, leaving shorter ones whole', () => {
    const long: Message = {
      role: 'user',
      content: [{ type: 'toolResult', toolUseId: 't', name: 'f', status: 'success', content: [{ type: 'text', text: 'abcdefghij' }] }],
    };
    const short: Message = {
      role: 'user',
      content: [{ type: 'toolResult', toolUseId: 'u', name: 'f', status: 'error', content: [{ type: 'text', text: 'abc' }] }],
    };
    expect(transcript([long, short], 4)).toEqual('user: [tool result success: abcd … (10 characters)]\nuser: [tool result error: abc]');
  });
});

describe('fallbackSummary', () => {
  it('is the heading and the transcript with tool outputs pruned to 200 characters by default', () => {
    const output = 'x'.repeat(250);
    const messages: Message[] = [
      user('q'),
      {
        role: 'user',
        content: [{ type: 'toolResult', toolUseId: 't', name: 'f', status: 'success', content: [{ type: 'text', text: output }] }],
      },
    ];
    expect(fallbackSummary(messages, undefined, undefined)).toEqual(
      `The summary could not be written; the earlier messages follow, shortened:\nuser: q\nuser: [tool result success: ${'x'.repeat(200)} … (250 characters)]`,
    );
  });

  it('keeps the end of the transcript that fits maxSummaryTokens', () => {
    expect(fallbackSummary([user('first'), user('second')], undefined, 3)).toEqual(
      'The summary could not be written; the earlier messages follow, shortened:\nuser: second',
    );
  });
});

describe('previousSummary', () => {
  it.each<[string, Message[], string | undefined]>([
    ['a summary message first', [user('Summary of the earlier conversation:\nOLD'), assistant('a')], 'OLD'],
    ['a heading without its line break', [user('Summary of the earlier conversation: OLD')], undefined],
    ['the heading in an assistant message', [assistant('Summary of the earlier conversation:\nOLD')], undefined],
    ['the summary message second', [user('q'), user('Summary of the earlier conversation:\nOLD')], undefined],
    ['an empty history', [], undefined],
  ])('finds the summary an earlier compaction left: %s', (_label, messages, expected) => {
    expect(previousSummary(messages)).toEqual(expected);
  });
});

describe('readCompactionState', () => {
  const state: CompactionState = { summary: 'S', fallback: false, compactions: 1, failures: 0, saved: 0.5, length: 3 };

  it('reads a well-formed state as a frozen copy', () => {
    const read = readCompactionState({ invocationState: { 'staged-middleware.compaction': { ...state } } });
    expect([read, Object.isFrozen(read)]).toEqual([state, true]);
  });

  it.each<[string, unknown]>([
    ['a string', 'S'],
    ['a summary that is not a string', { ...state, summary: 1 }],
    ['a fractional count', { ...state, failures: 0.5 }],
    ['a saving that is not finite', { ...state, saved: Number.NaN }],
    ['the fields only on the prototype', Object.create(state) as unknown],
  ])('takes %s as no state', (_label, value) => {
    expect(readCompactionState({ invocationState: { 'staged-middleware.compaction': value } })).toEqual(undefined);
  });

  it('never throws on outside data and answers a well-formed state or nothing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const read = readCompactionState({
          invocationState: JSON.parse(`{"staged-middleware.compaction":${JSON.stringify(value)}}`) as Record<string, unknown>,
        });
        return read === undefined || (typeof read.summary === 'string' && Object.isFrozen(read));
      }),
      { numRuns: 100 },
    );
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

describe('compaction in a run', () => {
  const longHistory = (): Message[] => [user('q1'), assistant('a1'), user('q2'), assistant('a2')];

  describe('when the summary model fails', () => {
    it('compacts with the fallback summary and records the failure', async () => {
      const summarizer = new ScriptedModel([failingTurn(new Error('summariser down'))]);
      const registry = new MiddlewareRegistry();
      registry.use(compaction({ maxTokens: 2, keepRecent: 1, countTokens: countMessages, summarize: { model: summarizer } }));
      const seen: (CompactionState | undefined)[] = [];
      registry.add(TurnStage.Input, (context) => {
        seen.push(CompactionStateKey.get(context));
        return context;
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('answer')]), registry, messages: [user('q1'), assistant('a1')] });
      const result = await agent.invoke('q2');
      const summary = 'The summary could not be written; the earlier messages follow, shortened:\nuser: q1\nassistant: a1';
      expect([result.stopReason, agent.messages[0], seen]).toEqual([
        'endTurn',
        user(`Summary of the earlier conversation:\n${summary}`),
        [{ summary, fallback: true, compactions: 1, failures: 1, saved: 1 / 3, length: 2 }],
      ]);
    });

    it('fails the run with the same error when fallback is false', async () => {
      const failure = new Error('summariser down');
      const registry = new MiddlewareRegistry();
      registry.use(
        compaction({
          maxTokens: 2,
          keepRecent: 1,
          countTokens: countMessages,
          fallback: false,
          summarize: { model: new ScriptedModel([failingTurn(failure)]) },
        }),
      );
      const agent = new Agent({ model: new ScriptedModel([textTurn('answer')]), registry, messages: [user('q1'), assistant('a1')] });
      const error = await agent.invoke('q2').then(
        () => undefined,
        (caughtError: unknown) => caughtError,
      );
      expect([error === failure, agent.messages.length]).toEqual([true, 2]);
    });

    it('lets a cancelled run end cancelled instead of falling back', async () => {
      let agent: Agent | undefined;
      const summarizer = {
        async *stream(): AsyncGenerator<never> {
          agent?.cancel();
          throw new Error('summariser down');
        },
      };
      const registry = new MiddlewareRegistry();
      registry.use(compaction({ maxTokens: 2, keepRecent: 1, countTokens: countMessages, summarize: { model: summarizer } }));
      const model = new ScriptedModel([textTurn('answer')]);
      agent = new Agent({ model, registry, messages: [user('q1'), assistant('a1')] });
      const result = await agent.invoke('q2');
      expect([result.stopReason, model.calls.length, agent.messages.length]).toEqual(['cancelled', 0, 2]);
    });
  });

  describe('with a summary cap', () => {
    it('asks for the cap and cuts a longer summary', async () => {
      const summarizer = new ScriptedModel([textTurn('abcdefghijkl')]);
      const registry = new MiddlewareRegistry();
      registry.use(
        compaction({
          maxTokens: 3,
          keepRecent: 1,
          maxSummaryTokens: 2,
          countTokens: countMessages,
          summarize: { model: summarizer, instructions: 'Sum up.' },
        }),
      );
      const agent = new Agent({ model: new ScriptedModel([textTurn('answer')]), registry, messages: longHistory() });
      await agent.invoke('q3');
      expect([summarizer.calls[0]?.request.systemPrompt, agent.messages[0]]).toEqual([
        'Sum up.\n\nKeep the summary under 2 tokens.',
        user('Summary of the earlier conversation:\nabcdefgh'),
      ]);
    });
  });

  describe('with carrySummary false', () => {
    it('summarises the previous summary with the rest', async () => {
      const summarizer = new ScriptedModel([textTurn('NEW')]);
      const registry = new MiddlewareRegistry();
      registry.use(
        compaction({ maxTokens: 3, keepRecent: 2, carrySummary: false, countTokens: countMessages, summarize: { model: summarizer } }),
      );
      const messages = [user('Summary of the earlier conversation:\nOLD'), assistant('a1'), user('q2'), assistant('a2')];
      const agent = new Agent({ model: new ScriptedModel([textTurn('answer')]), registry, messages });
      await agent.invoke('q3');
      expect([summarizer.calls[0]?.request.messages[0], agent.messages[0]]).toEqual([
        user('Summarise this conversation:\n\nuser: Summary of the earlier conversation:\nOLD\nassistant: a1\nuser: q2'),
        user('Summary of the earlier conversation:\nNEW'),
      ]);
    });
  });
});
