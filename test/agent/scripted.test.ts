import { createDraft } from 'immer';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/index';
import {
  ScriptedModel,
  ScriptedTool,
  createInterrupt,
  errorResult,
  failingTurn,
  isAgentResult,
  isModelResult,
  isToolResult,
  modelTerminal,
  textTurn,
  toResultContent,
  toolUseTurn,
  toModelRequest,
  InvokeModelStage,
  type InvokeModelContext,
  type InvokeModelEvent,
  type ModelStreamEvent,
  type ToolRunContext,
} from '../../src/agent/index';

const never = new AbortController().signal;

function contextFor(events: readonly ModelStreamEvent[]): InvokeModelContext {
  return { model: new ScriptedModel([{ events }]), messages: [], systemPrompt: [], toolSpecs: [], invocationState: {} };
}

async function play(events: readonly ModelStreamEvent[]): Promise<InvokeModelEvent[]> {
  const all: InvokeModelEvent[] = [];
  for await (const event of modelTerminal(contextFor(events), { stage: InvokeModelStage, signal: never, state: createDraft({}) })) all.push(event);
  return all;
}

const toolContext = (overrides: Partial<ToolRunContext> = {}): ToolRunContext => ({
  toolUse: { type: 'toolUse', toolUseId: 't1', name: 'x', input: {} },
  signal: never,
  invocationState: {},
  interrupt: createInterrupt('executeTool', 't1', new Map()),
  ...overrides,
});

describe('modelTerminal', () => {
  describe('assembling', () => {
    it('joins consecutive deltas into blocks and parses tool input JSON', async () => {
      const events = await play([
        { type: 'messageStart', role: 'assistant' },
        { type: 'reasoningDelta', text: 'think ' },
        { type: 'reasoningDelta', text: 'hard' },
        { type: 'textDelta', text: 'Hel' },
        { type: 'textDelta', text: 'lo' },
        { type: 'toolUseStart', toolUseId: 'a', name: 'f' },
        { type: 'toolUseDelta', input: '{"x":' },
        { type: 'toolUseDelta', input: '1}' },
        { type: 'toolUseStart', toolUseId: 'b', name: 'g' },
        { type: 'toolUseStart', toolUseId: 'c', name: 'h' },
        { type: 'toolUseDelta', input: '{broken' },
        { type: 'usage', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
        { type: 'messageStop', stopReason: 'toolUse' },
      ]);
      expect(events.at(-1)).toEqual({
        type: 'modelResult',
        message: {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'think hard' },
            { type: 'text', text: 'Hello' },
            { type: 'toolUse', toolUseId: 'a', name: 'f', input: { x: 1 } },
            { type: 'toolUse', toolUseId: 'b', name: 'g', input: {} },
            { type: 'toolUse', toolUseId: 'c', name: 'h', input: '{broken' },
          ],
        },
        stopReason: 'toolUse',
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      });
      expect(events.length).toEqual(14);
    });

    it('ends with endTurn and zero usage when the stream has no stop or usage, ignoring stray deltas', async () => {
      const events = await play([{ type: 'toolUseDelta', input: '{}' }, { type: 'textDelta', text: 'hi' }]);
      expect(events.at(-1)).toEqual({
        type: 'modelResult',
        message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
        stopReason: 'endTurn',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      });
    });

    it('forwards unknown event kinds untouched', async () => {
      const odd = { type: 'providerSpecific', data: 1 } as unknown as ModelStreamEvent;
      const context: InvokeModelContext = {
        ...contextFor([]),
        model: {
          async *stream() {
            yield odd;
          },
        },
      };
      const events: InvokeModelEvent[] = [];
      for await (const event of modelTerminal(context, { stage: InvokeModelStage, signal: never, state: createDraft({}) })) events.push(event);
      expect(events[0]).toBe(odd);
    });
  });

  describe('the request it sends (toModelRequest)', () => {
    it('gives the model the system prompt in both forms and everything else as it is', () => {
      const context: InvokeModelContext = { ...contextFor([]), systemPrompt: [{ text: 'a' }, { cachePoint: { type: 'default' } }], toolChoice: { type: 'tool', name: 'f' } };
      expect(toModelRequest(context)).toEqual({ messages: [], systemPrompt: 'a', systemBlocks: context.systemPrompt, toolSpecs: [], toolChoice: { type: 'tool', name: 'f' } });
    });
  });
});

describe('ScriptedModel', () => {
  describe('stream', () => {
    it('plays one turn per call and records each request and state', async () => {
      const model = new ScriptedModel([textTurn('a b'), { ...textTurn('c'), stateWrites: { n: 2 } }]);
      const request = toModelRequest(contextFor([]));
      const first: ModelStreamEvent[] = [];
      for await (const event of model.stream(request, { signal: never, state: createDraft({ n: 1 }) })) first.push(event);
      expect(first).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'textDelta', text: 'a ' },
        { type: 'textDelta', text: 'b' },
        { type: 'messageStop', stopReason: 'endTurn' },
      ]);
      const state = createDraft({ n: 1, gone: true } as Record<string, unknown>);
      for await (const _event of model.stream(request, { signal: never, state })) void _event;
      expect(model.calls.map((call) => call.state)).toEqual([{ n: 1 }, { n: 1, gone: true }]);
      expect(model.calls[0]?.request).toBe(request);
      expect({ ...state }).toEqual({ n: 2, gone: true });
    });

    it('throws the scripted error after the scripted events', async () => {
      const failure = new Error('overloaded');
      const model = new ScriptedModel([failingTurn(failure, [{ type: 'messageStart', role: 'assistant' }])]);
      const seen: unknown[] = [];
      const run = async (): Promise<void> => {
        for await (const event of model.stream(toModelRequest(contextFor([])), { signal: never, state: createDraft({}) })) seen.push(event.type);
      };
      await expect(run()).rejects.toBe(failure);
      expect(seen).toEqual(['messageStart']);
    });

    it('deletes scripted keys from the state draft', async () => {
      const model = new ScriptedModel([{ ...textTurn('x'), stateDeletes: ['a'] }]);
      const state = createDraft({ a: 1, b: 2 } as Record<string, unknown>);
      for await (const _event of model.stream(toModelRequest(contextFor([])), { signal: never, state })) void _event;
      expect({ ...state }).toEqual({ b: 2 });
    });

    it('stops with the abort reason when the signal is aborted', async () => {
      const model = new ScriptedModel([textTurn('x y')]);
      const reason = new Error('stop');
      const run = async (): Promise<void> => {
        for await (const _event of model.stream(toModelRequest(contextFor([])), { signal: AbortSignal.abort(reason), state: createDraft({}) })) void _event;
      };
      await expect(run()).rejects.toBe(reason);
    });

    it('fails with ERR_SCRIPT_EXHAUSTED past the end of the script', async () => {
      const model = new ScriptedModel([]);
      const run = async (): Promise<void> => {
        for await (const _event of model.stream(toModelRequest(contextFor([])), { signal: never, state: createDraft({}) })) void _event;
      };
      const error = (await run().catch((caught: unknown) => caught)) as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.message]).toEqual([
        true,
        'ERR_SCRIPT_EXHAUSTED',
        '[ERR_SCRIPT_EXHAUSTED] ScriptedModel was called 1 times, but its script has 0 turns. Add a turn for every model call the test makes (retries included).',
      ]);
    });
  });

  describe('turn builders', () => {
    it('builds a tool-use turn with default ids, text and usage', () => {
      const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
      expect(toolUseTurn([{ name: 'f', input: { a: 1 } }, { name: 'g', input: [] }], { text: 'Using tools.', usage })).toEqual({
        events: [
          { type: 'messageStart', role: 'assistant' },
          { type: 'textDelta', text: 'Using tools.' },
          { type: 'toolUseStart', toolUseId: 'tool-1', name: 'f' },
          { type: 'toolUseDelta', input: '{"a":1}' },
          { type: 'toolUseStart', toolUseId: 'tool-2', name: 'g' },
          { type: 'toolUseDelta', input: '[]' },
          { type: 'usage', usage },
          { type: 'messageStop', stopReason: 'toolUse' },
        ],
      });
    });

    it('builds a text turn with a chosen stop reason', () => {
      expect(textTurn('', { stopReason: 'maxTokens' })).toEqual({
        events: [{ type: 'messageStart', role: 'assistant' }, { type: 'messageStop', stopReason: 'maxTokens' }],
      });
    });
  });

  describe('turn builders given the wrong shape', () => {
    it('rejects text that is not a string with ERR_INVALID_OPTIONS', () => {
      expect(() => textTurn(5 as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'invokeModel', message: expect.stringContaining('textTurn(text)') }));
    });

    it.each<[string, unknown]>([
      ['a single tool use', { name: 'f', input: {} }],
      ['a tool use without a name', [{ input: {} }]],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, toolUses) => {
      expect(() => toolUseTurn(toolUses as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'invokeModel', message: expect.stringContaining('toolUseTurn(toolUses)') }),
      );
    });
  });

  describe('constructor', () => {
    it.each<[string, unknown]>([
      ['a single turn', textTurn('hi')],
      ['a list holding null', [null]],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, turns) => {
      expect(() => new ScriptedModel(turns as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'invokeModel', message: expect.stringContaining('new ScriptedModel(turns)') }),
      );
    });
  });
});

describe('ScriptedTool', () => {
  describe('run', () => {
    it('answers with its outcomes in order, repeating the last, and records calls', async () => {
      const failure = new Error('no');
      const tool = new ScriptedTool({ name: 'f', outcomes: [{ value: 1 }, { error: failure }] });
      expect(await tool.run('a', toolContext())).toEqual(1);
      await expect(tool.run('b', toolContext())).rejects.toBe(failure);
      await expect(tool.run('c', toolContext())).rejects.toBe(failure);
      expect(tool.calls.map((call) => [call.input, call.toolUseId])).toEqual([['a', 't1'], ['b', 't1'], ['c', 't1']]);
    });

    it('answers ok by default and describes itself', async () => {
      const tool = new ScriptedTool({ name: 'f' });
      expect(await tool.run({}, toolContext())).toEqual('ok');
      expect(tool.spec).toEqual({ name: 'f', description: 'Scripted tool f.', inputSchema: { type: 'object' } });
    });

    it('calls respond with the input and context', async () => {
      const tool = new ScriptedTool({ name: 'f', description: 'd', inputSchema: { type: 'string' }, respond: (input, context) => `${String(input)}:${context.toolUse.toolUseId}` });
      expect(await tool.run('x', toolContext())).toEqual('x:t1');
    });
  });

  describe('constructor', () => {
    it.each<[string, unknown, string]>([
      ['no options', undefined, 'options.name'],
      ['an empty name', { name: '' }, 'options.name'],
      ['a respond that is not a function', { name: 'f', respond: 'ok' }, 'options.respond'],
      ['outcomes that are not an array', { name: 'f', outcomes: { value: 1 } }, 'options.outcomes'],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, options, problem) => {
      expect(() => new ScriptedTool(options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'executeTool', message: expect.stringContaining(problem) }),
      );
    });
  });
});

describe('isModelResult, isToolResult, isAgentResult', () => {
  describe('events of every kind', () => {
    it.each([
      [isModelResult, { type: 'modelResult' }, true],
      [isModelResult, { type: 'textDelta' }, false],
      [isToolResult, { type: 'toolResult' }, true],
      [isToolResult, null, false],
      [isAgentResult, { type: 'agentResult' }, true],
      [isAgentResult, 'agentResult', false],
    ])('%o on %j is %j', (guard, event, expected) => {
      expect(guard(event)).toEqual(expected);
    });
  });
});

describe('toResultContent', () => {
  describe('tool return values', () => {
    it.each([
      ['text', 'hi', [{ type: 'text', text: 'hi' }]],
      ['json', { a: 1 }, [{ type: 'json', json: { a: 1 } }]],
      ['undefined as null', undefined, [{ type: 'json', json: null }]],
    ])('sends %s', (_label, value, expected) => {
      expect(toResultContent(value)).toEqual(expected);
    });
  });
});

describe('errorResult', () => {
  describe('with and without the error', () => {
    it('builds an error result, with the error only when given', () => {
      const error = new Error('x');
      expect(errorResult('t', 'bad')).toEqual({ type: 'toolResult', toolResult: { type: 'toolResult', toolUseId: 't', status: 'error', content: [{ type: 'text', text: 'bad' }] } });
      expect(errorResult('t', 'bad', error).error).toBe(error);
    });
  });
});
