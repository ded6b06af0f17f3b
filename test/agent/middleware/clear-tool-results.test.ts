import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import {
  Agent,
  InvokeModelStage,
  clearToolResults,
  compaction,
  createModelContext,
  type ClearToolResultsOptions,
  type InvokeModelContext,
  type Message,
  type ToolResultBlock,
} from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';
import { caught } from '../../assertions';

const PLACEHOLDER = '[Tool result cleared to save context. Call the tool again if you need it.]';

/** A tool result block of `name` answering `id` with `text`. */
const result = (id: string, name: string, text: string): ToolResultBlock => ({
  type: 'toolResult',
  toolUseId: id,
  name,
  status: 'success',
  content: [{ type: 'text', text }],
});

/** The texts of the tool results of `messages`, in order. */
const resultTexts = (messages: readonly Message[]): string[] =>
  messages.flatMap((message) =>
    message.content.flatMap((block) =>
      block.type === 'toolResult' ? [block.content.map((part) => (part.type === 'text' ? part.text : '')).join('')] : [],
    ),
  );

/** An agent whose model asks for search three times, one call a turn, then answers; its tool answers `found <n>`. */
function searchingAgent(options: ClearToolResultsOptions, registry = new MiddlewareRegistry()) {
  const model = new ScriptedModel([
    toolUseTurn([{ name: 'search', input: { n: 1 }, toolUseId: 's1' }]),
    toolUseTurn([{ name: 'search', input: { n: 2 }, toolUseId: 's2' }]),
    toolUseTurn([{ name: 'search', input: { n: 3 }, toolUseId: 's3' }]),
    textTurn('Done.'),
  ]);
  let count = 0;
  const search = new ScriptedTool({ name: 'search', respond: () => `found ${++count}` });
  registry.add(InvokeModelStage.Input, clearToolResults(options));
  const agent = new Agent({ model, registry, tools: [search] });
  return { agent, model };
}

/** A model context of `messages`, as the agent builds one. */
function contextOf(messages: readonly Message[], caller?: string): InvokeModelContext {
  return createModelContext({
    model: new ScriptedModel([]),
    messages,
    systemPrompt: undefined,
    toolSpecs: [],
    invocationState: {},
    ...(caller === undefined ? {} : { caller }),
  });
}

/** Runs the handler alone on a context of `messages`. */
function edit(options: ClearToolResultsOptions, messages: readonly Message[], caller?: string): InvokeModelContext {
  return clearToolResults(options)(contextOf(messages, caller), { handler: 'clearToolResults' } as never) as InvokeModelContext;
}

describe('clearToolResults', () => {
  describe('a run with more tool results than it keeps', () => {
    it('sends each model call every result but the last keep as the placeholder', async () => {
      const { agent, model } = searchingAgent({ keep: 1 });
      await agent.invoke('Find it');
      expect(model.calls.map((call) => resultTexts(call.request.messages))).toEqual([
        [],
        ['found 1'],
        [PLACEHOLDER, 'found 2'],
        [PLACEHOLDER, PLACEHOLDER, 'found 3'],
      ]);
    });

    it('keeps every result whole in the history', async () => {
      const { agent } = searchingAgent({ keep: 1 });
      await agent.invoke('Find it');
      expect(resultTexts(agent.messages)).toEqual(['found 1', 'found 2', 'found 3']);
    });

    it('keeps the tool use, the id, the name and the status of a cleared result', async () => {
      const { agent, model } = searchingAgent({ keep: 0, placeholder: '[gone]' });
      await agent.invoke('Find it');
      expect(model.calls[3]?.request.messages.slice(1, 3)).toEqual([
        { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 's1', name: 'search', input: { n: 1 } }] },
        { role: 'user', content: [result('s1', 'search', '[gone]')] },
      ]);
    });
  });

  describe('a trigger', () => {
    it('clears only in calls whose messages count more than triggerTokens', async () => {
      const { agent, model } = searchingAgent({ keep: 0, triggerTokens: 4, countTokens: (messages) => messages.length });
      await agent.invoke('Find it');
      // The calls receive 1, 3, 5 and 7 messages.
      expect(model.calls.map((call) => resultTexts(call.request.messages))).toEqual([
        [],
        ['found 1'],
        [PLACEHOLDER, PLACEHOLDER],
        [PLACEHOLDER, PLACEHOLDER, PLACEHOLDER],
      ]);
    });

    it('fails the call with ERR_INVALID_OPTIONS when the counter returns no number >= 0', async () => {
      const { agent } = searchingAgent({ triggerTokens: 1, countTokens: () => Number.NaN });
      const error = (await agent.invoke('Find it').catch((thrown: unknown) => thrown)) as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.stage, error.phase, error.handler]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'invokeModel',
        'input',
        'clearToolResults',
      ]);
    });
  });

  describe('the context it edits', () => {
    const messages: readonly Message[] = Object.freeze([
      { role: 'user', content: [{ type: 'text', text: 'Plan it' }] },
      {
        role: 'assistant',
        content: [
          { type: 'toolUse', toolUseId: 'p1', name: 'plan', input: {} },
          { type: 'toolUse', toolUseId: 's1', name: 'search', input: {} },
        ],
      },
      { role: 'user', content: [result('p1', 'plan', 'the plan'), result('s1', 'search', 'found 1')] },
      { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 's2', name: 'search', input: {} }] },
      { role: 'user', content: [result('s2', 'search', 'found 2')] },
    ]);

    it('leaves the results of excluded tools, which count among the kept', () => {
      expect(resultTexts(edit({ keep: 1, excludeTools: ['plan'] }, messages).messages)).toEqual(['the plan', PLACEHOLDER, 'found 2']);
    });

    it('returns the context itself when nothing is cleared, and the messages without a cleared result as they were', () => {
      const context = contextOf(messages);
      const handler = clearToolResults({ keep: 3 });
      const edited = edit({ keep: 2 }, messages);
      expect([
        handler(context, { handler: 'clearToolResults' } as never) === context,
        edited.messages.map((message, index) => message === messages[index]),
        Object.isFrozen(edited.messages) && Object.isFrozen(edited.messages[2]),
      ]).toEqual([true, [true, true, false, true, true], true]);
    });

    it('clears a result once: clearing the edited messages again returns them as they are', () => {
      const once = edit({ keep: 0 }, messages);
      expect(edit({ keep: 0 }, once.messages).messages).toBe(once.messages);
    });

    it('leaves a call middleware makes alone', () => {
      expect(edit({ keep: 0 }, messages, 'compaction').messages).toBe(messages);
    });
  });

  describe('beside compaction', () => {
    it('leaves the summary call the whole results to summarise', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(compaction({ maxTokens: 6, keepRecent: 1, countTokens: (messages) => messages.length }));
      registry.add(InvokeModelStage.Input, clearToolResults({ keep: 0 }));
      const model = new ScriptedModel([
        toolUseTurn([{ name: 'search', input: { n: 1 }, toolUseId: 's1' }]),
        toolUseTurn([{ name: 'search', input: { n: 2 }, toolUseId: 's2' }]),
        toolUseTurn([{ name: 'search', input: { n: 3 }, toolUseId: 's3' }]),
        textTurn('Searched three times.'),
        textTurn('Done.'),
      ]);
      let count = 0;
      const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'search', respond: () => `found ${++count}` })] });
      await agent.invoke('Find it');
      expect([model.calls[3]?.request.messages[0]?.content, resultTexts(model.calls[4]?.request.messages ?? [])]).toEqual([
        [
          {
            type: 'text',
            text: 'Summarise this conversation:\n\nuser: Find it\nassistant: [tool call search {"n":1}]\nuser: [tool result success: found 1]\nassistant: [tool call search {"n":2}]\nuser: [tool result success: found 2]',
          },
        ],
        [PLACEHOLDER],
      ]);
    });
  });

  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['options that are not an object', 3],
      ['a keep that is negative', { keep: -1 }],
      ['a keep that is not an integer', { keep: 1.5 }],
      ['a triggerTokens below 0', { triggerTokens: -1 }],
      ['an empty placeholder', { placeholder: '' }],
      ['excludeTools that are not names', { excludeTools: [1] }],
      ['a countTokens that is not a function', { countTokens: 'words' }],
      ['an unknown option', { clearAtLeast: 1000 }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      const error = caught(() => clearToolResults(options as never));
      expect([MiddlewareError.isInstance(error), error.code, error.handler, error.phase]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'clearToolResults',
        'register',
      ]);
    });
  });

  it('is named clearToolResults', () => {
    const registry = new MiddlewareRegistry();
    registry.add(InvokeModelStage.Input, clearToolResults());
    expect([clearToolResults().name, registry.describe(InvokeModelStage).map((entry) => entry.name)]).toEqual([
      'clearToolResults',
      ['clearToolResults'],
    ]);
  });
});
