import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import { Agent, ExecuteToolStage, InvokeModelStage, toolEmulator, type Message, type Tool } from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn, toolUseTurn } from '../../../src/testing/index';
import { caught } from '../../assertions';

const USAGE = { inputTokens: 30, outputTokens: 8, totalTokens: 38 };

/** A tool with only a spec: not implemented yet. */
const bookFlight: Tool = {
  spec: {
    name: 'book_flight',
    description: 'Books a flight.',
    inputSchema: { type: 'object', properties: { to: { type: 'string' } } },
  },
};

/** The texts of the tool results of `messages`, in order. */
const resultTexts = (messages: readonly Message[]): string[] =>
  messages.flatMap((message) =>
    message.content.flatMap((block) =>
      block.type === 'toolResult'
        ? [`${block.name} ${block.status}: ${block.content.map((part) => (part.type === 'text' ? part.text : '')).join('')}`]
        : [],
    ),
  );

/** An agent whose model calls book_flight and search in one turn, then answers; the emulator plays with `emulator`. */
function agentWith(emulator: ScriptedModel, tools?: readonly string[]) {
  const model = new ScriptedModel([
    toolUseTurn([
      { name: 'book_flight', input: { to: 'Oslo' }, toolUseId: 'b1' },
      { name: 'search', input: { q: 'hotels' }, toolUseId: 's1' },
    ]),
    textTurn('Booked.'),
  ]);
  const search = new ScriptedTool({ name: 'search', outcomes: [{ value: '2 hotels' }] });
  const registry = new MiddlewareRegistry();
  registry.add(ExecuteToolStage.Wrap, toolEmulator({ model: emulator, ...(tools === undefined ? {} : { tools }) }));
  const agent = new Agent({ model, registry, tools: [bookFlight, search] });
  return { agent, model, search };
}

describe('toolEmulator', () => {
  describe('a tool it plays', () => {
    it("answers the call with the emulator model's reply, and the tools it does not play run", async () => {
      const emulator = new ScriptedModel([textTurn('Booked SK123 to Oslo.', { usage: USAGE })]);
      const { agent, search } = agentWith(emulator, ['book_flight']);
      const result = await agent.invoke('Book a trip');
      expect([resultTexts(agent.messages), search.calls.map((call) => call.input), result.stopReason]).toEqual([
        ['book_flight success: Booked SK123 to Oslo.', 'search success: 2 hotels'],
        [{ q: 'hotels' }],
        'endTurn',
      ]);
    });

    it("asks the emulator with the tool's name, description, input schema and the call's input, and no tools", async () => {
      const emulator = new ScriptedModel([textTurn('Booked.')]);
      const { agent } = agentWith(emulator, ['book_flight']);
      await agent.invoke('Book a trip');
      const [call] = emulator.calls;
      expect([call?.request.systemPrompt.startsWith('You stand in for a tool'), call?.request.toolSpecs, call?.request.messages]).toEqual([
        true,
        [],
        [
          {
            role: 'user',
            content: [
              {
                type: 'text',
                text: 'Tool: book_flight\nDescription: Books a flight.\nInput schema: {"type":"object","properties":{"to":{"type":"string"}}}\nInput: {"to":"Oslo"}',
              },
            ],
          },
        ],
      ]);
    });

    it("reports the emulator's usage under the tool's name, apart from the agent's", async () => {
      const emulator = new ScriptedModel([textTurn('Booked.', { usage: USAGE })]);
      const { agent } = agentWith(emulator, ['book_flight']);
      const result = await agent.invoke('Book a trip');
      expect([result.middlewareUsage, result.usage]).toEqual([{ book_flight: USAGE }, { inputTokens: 0, outputTokens: 0, totalTokens: 0 }]);
    });

    it("is not seen by the run's InvokeModelStage handlers", async () => {
      const emulator = new ScriptedModel([textTurn('Booked.')]);
      const { agent } = agentWith(emulator, ['book_flight']);
      const callers: string[] = [];
      agent.registry.add(InvokeModelStage.Input, (context) => {
        callers.push(context.caller ?? 'agent');
        return context;
      });
      await agent.invoke('Book a trip');
      expect(callers).toEqual(['agent', 'agent']);
    });

    it('fails the run with the error of the emulation call, unchanged', async () => {
      const failure = new Error('emulator down');
      const { agent } = agentWith(new ScriptedModel([failingTurn(failure)]), ['book_flight']);
      await expect(agent.invoke('Book a trip')).rejects.toBe(failure);
    });
  });

  describe('without tools', () => {
    it('plays every tool the agent has, and leaves a tool it does not have to its error result', async () => {
      const emulator = new ScriptedModel([textTurn('Emulated.'), textTurn('Emulated.')]);
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'book_flight', input: {}, toolUseId: 'b1' },
          { name: 'search', input: {}, toolUseId: 's1' },
          { name: 'missing', input: {}, toolUseId: 'm1' },
        ]),
        textTurn('Done.'),
      ]);
      const search = new ScriptedTool({ name: 'search' });
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, toolEmulator({ model: emulator }));
      const agent = new Agent({ model, registry, tools: [bookFlight, search] });
      await agent.invoke('Go');
      expect([resultTexts(agent.messages).slice(0, 2), resultTexts(agent.messages)[2]?.startsWith('missing error:'), search.calls]).toEqual(
        [['book_flight success: Emulated.', 'search success: Emulated.'], true, []],
      );
    });
  });

  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['options that are not an object', 'model'],
      ['no model', {}],
      ['a model without stream()', { model: {} }],
      ['an empty tools list', { model: new ScriptedModel([]), tools: [] }],
      ['tools that are not names', { model: new ScriptedModel([]), tools: [''] }],
      ['instructions that are not a string', { model: new ScriptedModel([]), instructions: 1 }],
      ['an unknown option', { model: new ScriptedModel([]), toolNames: ['a'] }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      const error = caught(() => toolEmulator(options as never));
      expect([MiddlewareError.isInstance(error), error.code, error.handler, error.phase]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'toolEmulator',
        'register',
      ]);
    });
  });
});
