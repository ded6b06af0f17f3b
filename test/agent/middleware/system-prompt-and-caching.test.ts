import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import {
  Agent,
  InvokeModelStage,
  compaction,
  dynamicSystemPrompt,
  promptCaching,
  type PromptCachingOptions,
  type SystemPromptFunction,
} from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';
import { caught } from '../../assertions';

/** An agent whose model calls lookup once, then answers; `register` adds the handler under test. */
function agentWith(register: (registry: MiddlewareRegistry) => void, systemPrompt?: string | readonly Record<string, unknown>[]) {
  const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {}, toolUseId: 'l1' }]), textTurn('Done.')]);
  const registry = new MiddlewareRegistry();
  register(registry);
  const agent = new Agent({
    model,
    registry,
    tools: [new ScriptedTool({ name: 'lookup' })],
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
  });
  return { agent, model };
}

describe('dynamicSystemPrompt', () => {
  describe("the agent's calls", () => {
    it('get the prompt the function computes from each call, the agent option being what it receives', async () => {
      const seen: string[] = [];
      const prompt: SystemPromptFunction = (context) => {
        seen.push(context.systemPrompt.map((block) => (block as { text?: string }).text ?? '').join(''));
        return `Turn with ${context.messages.length} messages.`;
      };
      const { agent, model } = agentWith((registry) => registry.add(InvokeModelStage.Input, dynamicSystemPrompt(prompt)), 'Static.');
      await agent.invoke('go');
      expect([seen, model.calls.map((call) => call.request.systemPrompt)]).toEqual([
        ['Static.', 'Static.'],
        ['Turn with 1 messages.', 'Turn with 3 messages.'],
      ]);
    });

    it('keep the cache points of blocks it returns, and the prompt they had when it returns undefined', async () => {
      let calls = 0;
      const { agent, model } = agentWith(
        (registry) =>
          registry.add(
            InvokeModelStage.Input,
            dynamicSystemPrompt(async () => (++calls === 1 ? [{ text: 'Rules.' }, { cachePoint: { type: 'default' } }] : undefined)),
          ),
        'Static.',
      );
      await agent.invoke('go');
      expect(model.calls.map((call) => call.request.systemBlocks)).toEqual([
        [{ text: 'Rules.' }, { cachePoint: { type: 'default' } }],
        [{ text: 'Static.' }],
      ]);
    });
  });

  describe("a middleware's own call", () => {
    it('keeps the prompt it was given', async () => {
      const model = new ScriptedModel([textTurn('One.'), textTurn('Summary.'), textTurn('Two.')]);
      const registry = new MiddlewareRegistry();
      registry.use(
        compaction({ maxTokens: 2, keepRecent: 1, countTokens: (messages) => messages.length, summarize: { instructions: 'Summarise.' } }),
      );
      registry.add(
        InvokeModelStage.Input,
        dynamicSystemPrompt(() => 'Dynamic.'),
      );
      const agent = new Agent({ model, registry });
      await agent.invoke('one');
      await agent.invoke('two');
      expect(model.calls.map((call) => call.request.systemPrompt)).toEqual(['Dynamic.', 'Summarise.', 'Dynamic.']);
    });
  });

  describe('a prompt of the wrong shape', () => {
    it('fails the call with ERR_INVALID_OPTIONS', async () => {
      const { agent } = agentWith((registry) =>
        registry.add(
          InvokeModelStage.Input,
          dynamicSystemPrompt(() => 42 as never),
        ),
      );
      const error = (await agent.invoke('go').catch((thrown: unknown) => thrown)) as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.stage, error.phase, error.handler]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'invokeModel',
        'input',
        'dynamicSystemPrompt',
      ]);
    });
  });

  it('refuses a prompt that is no function with ERR_INVALID_OPTIONS', () => {
    const error = caught(() => dynamicSystemPrompt('Static.' as never));
    expect([error.code, error.handler, error.phase]).toEqual(['ERR_INVALID_OPTIONS', 'dynamicSystemPrompt', 'register']);
  });
});

describe('promptCaching', () => {
  describe("the agent's calls", () => {
    it('get a cache point after the system prompt and at the end of the last message', async () => {
      const { agent, model } = agentWith(
        (registry) => registry.add(InvokeModelStage.Input, promptCaching({ cacheType: 'long' })),
        'Be brief.',
      );
      await agent.invoke('go');
      expect(model.calls.map((call) => [call.request.systemBlocks, call.request.messages.at(-1)?.content.at(-1)])).toEqual([
        [[{ text: 'Be brief.' }, { cachePoint: { type: 'long' } }], { type: 'cachePoint', cacheType: 'long' }],
        [[{ text: 'Be brief.' }, { cachePoint: { type: 'long' } }], { type: 'cachePoint', cacheType: 'long' }],
      ]);
    });

    it('leave the history without cache points', async () => {
      const { agent } = agentWith((registry) => registry.add(InvokeModelStage.Input, promptCaching()), 'Be brief.');
      await agent.invoke('go');
      expect(agent.messages.flatMap((message) => message.content.map((block) => block.type))).toEqual([
        'text',
        'toolUse',
        'toolResult',
        'text',
      ]);
    });

    it('add no second cache point where one is already, nor one to an empty system prompt', async () => {
      const { agent, model } = agentWith(
        (registry) => registry.add(InvokeModelStage.Input, promptCaching({ messages: false })),
        [{ text: 'Rules.' }, { cachePoint: { type: 'default' } }],
      );
      const bare = agentWith((registry) => registry.add(InvokeModelStage.Input, promptCaching({ messages: false })));
      await agent.invoke('go');
      await bare.agent.invoke('go');
      expect([model.calls[0]?.request.systemBlocks, model.calls[0]?.request.messages, bare.model.calls[0]?.request.systemBlocks]).toEqual([
        [{ text: 'Rules.' }, { cachePoint: { type: 'default' } }],
        [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
        [],
      ]);
    });
  });

  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['options that are not an object', true],
      ['a system that is not a boolean', { system: 'yes' }],
      ['messages that is not a boolean', { messages: 1 }],
      ['an empty cacheType', { cacheType: '' }],
      ['an unknown option', { ttl: '1h' }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      const error = caught(() => promptCaching(options as PromptCachingOptions));
      expect([MiddlewareError.isInstance(error), error.code, error.handler, error.phase]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'promptCaching',
        'register',
      ]);
    });
  });
});
