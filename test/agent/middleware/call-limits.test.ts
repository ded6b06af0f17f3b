import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import { Agent, compaction, modelCallLimit, toolCallLimit, type AgentResultEvent, type Message, type Tool } from '../../../src/agent/index';
import { ScriptedModel, textTurn, toolUseTurn, type ScriptedTurn } from '../../../src/testing/index';
import { caught } from '../../assertions';

/** A tool that records its inputs and answers `done <n>`. */
function recordingTool(name: string, calls: unknown[]): Tool {
  return {
    spec: { name, description: `Tool ${name}.`, inputSchema: { type: 'object' } },
    run: (input) => {
      calls.push(input);
      return `done ${calls.length}`;
    },
  };
}

/** A model that asks for `tool` on every call, with the call number as input. */
function askingModel(tool: string, count: number): ScriptedModel {
  const turns: ScriptedTurn[] = [];
  for (let index = 1; index <= count; index++) turns.push(toolUseTurn([{ name: tool, input: { n: index }, toolUseId: `t${index}` }]));
  return new ScriptedModel(turns);
}

const textOf = (message: Message | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('modelCallLimit', () => {
  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['options that are not an object', 3],
      ['no limit', {}],
      ['a runLimit of 0', { runLimit: 0 }],
      ['a sessionLimit that is not an integer', { sessionLimit: 1.5 }],
      ['an unknown option', { runLimit: 2, exitBehavior: 'end' }],
      ['a tool option, which only toolCallLimit has', { runLimit: 2, tool: 'search' }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      const error = caught(() => modelCallLimit(options as never));
      expect([MiddlewareError.isInstance(error), error.code, error.handler, error.phase]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'modelCallLimit',
        'register',
      ]);
    });
  });

  describe('a run that reaches its run limit', () => {
    it('ends the run after the limit with a stoppedBy naming the limit, without calling the model again', async () => {
      const calls: unknown[] = [];
      const model = askingModel('search', 5);
      const agent = new Agent({ model, tools: [recordingTool('search', calls)] });
      agent.registry.use(modelCallLimit({ runLimit: 2 }));
      const result = await agent.invoke('find it');
      expect({
        stopReason: result.stopReason,
        stoppedBy: result.stoppedBy,
        text: textOf(result.message),
        modelCalls: model.calls.length,
        toolCalls: calls,
      }).toEqual({
        stopReason: 'stopped',
        stoppedBy: { handler: 'modelCallLimit', reason: 'reached the run limit of 2 model calls' },
        text: 'Model call limit: reached the run limit of 2 model calls.',
        modelCalls: 2,
        toolCalls: [{ n: 1 }, { n: 2 }],
      });
    });

    it('counts afresh in the next run', async () => {
      const model = new ScriptedModel([textTurn('one'), textTurn('two'), textTurn('three')]);
      const agent = new Agent({ model });
      agent.registry.use(modelCallLimit({ runLimit: 1 }));
      const results: AgentResultEvent[] = [await agent.invoke('a'), await agent.invoke('b'), await agent.invoke('c')];
      expect(results.map((result) => [result.stopReason, textOf(result.message)])).toEqual([
        ['endTurn', 'one'],
        ['endTurn', 'two'],
        ['endTurn', 'three'],
      ]);
    });
  });

  describe('a session that reaches its session limit', () => {
    it('refuses the next call in a later run, and in an agent restored from the snapshot', async () => {
      const model = new ScriptedModel([textTurn('one'), textTurn('two'), textTurn('three')]);
      const registry = new MiddlewareRegistry();
      registry.use(modelCallLimit({ sessionLimit: 2 }));
      const agent = new Agent({ model, registry });
      await agent.invoke('a');
      await agent.invoke('b');
      const restored = new Agent({ model, registry, snapshot: JSON.parse(JSON.stringify(agent.snapshot())) });
      const result = await restored.invoke('c');
      expect({
        stoppedBy: result.stoppedBy,
        modelCalls: model.calls.length,
        state: restored.modelState,
      }).toEqual({
        stoppedBy: { handler: 'modelCallLimit', reason: 'reached the session limit of 2 model calls' },
        modelCalls: 2,
        state: { 'staged-middleware.modelCalls': 2 },
      });
    });
  });

  describe("a middleware's own model call", () => {
    it('is not counted: a compaction summary does not use up the limit', async () => {
      const model = new ScriptedModel([textTurn('one'), textTurn('summary'), textTurn('two')]);
      const agent = new Agent({ model });
      agent.registry.use(compaction({ maxTokens: 0, keepRecent: 1, countTokens: (messages) => Math.max(0, messages.length - 2) }));
      agent.registry.use(modelCallLimit({ runLimit: 1 }));
      await agent.invoke('a');
      const result = await agent.invoke('b');
      expect([result.stopReason, textOf(result.message), result.middlewareUsage === undefined]).toEqual(['endTurn', 'two', false]);
    });
  });
});

describe('toolCallLimit', () => {
  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['no limit', { tool: 'search' }],
      ['an empty tool name', { tool: '', runLimit: 1 }],
      ['an onLimit it does not know', { runLimit: 1, onLimit: 'error' }],
      ['an unknown option', { runLimit: 1, toolName: 'search' }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      const error = caught(() => toolCallLimit(options as never));
      expect([error.code, error.handler]).toEqual(['ERR_INVALID_OPTIONS', 'toolCallLimit']);
    });
  });

  describe("with onLimit: 'answer' (the default)", () => {
    it('answers a call past the run limit with an error result the model reads, and the run goes on', async () => {
      const calls: unknown[] = [];
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'search', input: { n: 1 }, toolUseId: 'a' },
          { name: 'search', input: { n: 2 }, toolUseId: 'b' },
          { name: 'fetch', input: { n: 3 }, toolUseId: 'c' },
        ]),
        textTurn('done'),
      ]);
      const agent = new Agent({ model, tools: [recordingTool('search', calls), recordingTool('fetch', calls)] });
      agent.registry.use(toolCallLimit({ tool: 'search', runLimit: 1 }));
      const result = await agent.invoke('go');
      expect({ stopReason: result.stopReason, calls, results: agent.messages[2]?.content }).toEqual({
        stopReason: 'endTurn',
        calls: [{ n: 1 }, { n: 3 }],
        results: [
          { type: 'toolResult', toolUseId: 'a', name: 'search', status: 'success', content: [{ type: 'text', text: 'done 1' }] },
          {
            type: 'toolResult',
            toolUseId: 'b',
            name: 'search',
            status: 'error',
            content: [
              {
                type: 'text',
                text: 'Tool call limit: reached the run limit of 1 call of search. Do not call search again; answer with what you have.',
              },
            ],
          },
          { type: 'toolResult', toolUseId: 'c', name: 'fetch', status: 'success', content: [{ type: 'text', text: 'done 2' }] },
        ],
      });
    });
  });

  describe("with onLimit: 'end'", () => {
    it('ends the run after the turn with a stoppedBy naming the limit', async () => {
      const calls: unknown[] = [];
      const model = askingModel('search', 5);
      const agent = new Agent({ model, tools: [recordingTool('search', calls)] });
      agent.registry.use(toolCallLimit({ runLimit: 2, onLimit: 'end' }));
      const result = await agent.invoke('go');
      expect({ stopReason: result.stopReason, stoppedBy: result.stoppedBy, calls, modelCalls: model.calls.length }).toEqual({
        stopReason: 'stopped',
        stoppedBy: { handler: 'toolCallLimit', reason: 'reached the run limit of 2 tool calls' },
        calls: [{ n: 1 }, { n: 2 }],
        modelCalls: 3,
      });
    });
  });

  describe('a session limit', () => {
    it('counts the calls the model asked for in earlier runs, across a snapshot', async () => {
      const calls: unknown[] = [];
      const tools = [recordingTool('search', calls)];
      const registry = new MiddlewareRegistry();
      registry.use(toolCallLimit({ tool: 'search', sessionLimit: 2, onLimit: 'end' }));
      registry.use(modelCallLimit({ runLimit: 1 }));
      const first = new Agent({ model: askingModel('search', 1), tools, registry });
      // One model call per run: each run ends after its tool call, so the call is counted with the model call that asked for it.
      await first.invoke('one');
      const second = new Agent({
        model: askingModel('search', 1),
        tools,
        registry,
        snapshot: JSON.parse(JSON.stringify(first.snapshot())),
      });
      await second.invoke('two');
      const third = new Agent({
        model: askingModel('search', 1),
        tools,
        registry,
        snapshot: JSON.parse(JSON.stringify(second.snapshot())),
      });
      const result = await third.invoke('three');
      expect({ calls, stoppedBy: result.stoppedBy }).toEqual({
        calls: [{ n: 1 }, { n: 1 }],
        stoppedBy: { handler: 'toolCallLimit', reason: 'reached the session limit of 2 calls of search' },
      });
    });
  });

  describe('a tool named __proto__', () => {
    it('is counted like any other', async () => {
      const calls: unknown[] = [];
      const agent = new Agent({ model: askingModel('__proto__', 3), tools: [recordingTool('__proto__', calls)] });
      agent.registry.use(toolCallLimit({ tool: '__proto__', runLimit: 1, onLimit: 'end' }));
      const result = await agent.invoke('go');
      expect([calls, result.stoppedBy]).toEqual([
        [{ n: 1 }],
        { handler: 'toolCallLimit', reason: 'reached the run limit of 1 call of __proto__' },
      ]);
    });
  });
});
