import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError, MiddlewareRegistry, type Middleware } from '../../../src/core/index';
import { Agent, InvokeModelStage, ToolsKey, subagent, type AgentEvent, type SubagentOptions, type Tool } from '../../../src/agent/index';
import { SUBAGENT_STATE_KEY } from '../../../src/agent/middleware/subagent';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';

const childModel = () => new ScriptedModel([textTurn('Oslo.')]);

/** A parent whose model delegates `task` to the sub-agent, then answers `answer`. */
function delegating(task: unknown, answer = 'Done.'): ScriptedModel {
  return new ScriptedModel([toolUseTurn([{ name: 'researcher', input: task, toolUseId: 't1' }]), textTurn(answer)]);
}

describe('subagent', () => {
  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['no options', undefined],
      ['an empty name', { name: '', description: 'd', model: childModel() }],
      ['a description that is not a string', { name: 'r', description: 3, model: childModel() }],
      ['a model without stream', { name: 'r', description: 'd', model: {} }],
      ['tools that are not an array', { name: 'r', description: 'd', model: childModel(), tools: 'search' }],
      ['an unknown inherit', { name: 'r', description: 'd', model: childModel(), inherit: 'all' }],
      ['middleware that is not an array', { name: 'r', description: 'd', model: childModel(), middleware: {} }],
      ['an input that is no zod schema', { name: 'r', description: 'd', model: childModel(), input: { type: 'object' } }],
      ['a prompt that is not a function', { name: 'r', description: 'd', model: childModel(), prompt: 'Do it.' }],
      ['an unknown result', { name: 'r', description: 'd', model: childModel(), result: 'json' }],
      ['an unknown option', { name: 'r', description: 'd', model: childModel(), subagentType: 'general' }],
      ['an events that is not a boolean', { name: 'r', description: 'd', model: childModel(), events: 'all' }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      let error: unknown;
      try {
        subagent(options as SubagentOptions);
      } catch (caught) {
        error = caught;
      }
      expect([MiddlewareError.isInstance(error), (error as MiddlewareError).code, (error as MiddlewareError).handler]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'subagent',
      ]);
    });
  });

  describe('the contributed tool', () => {
    it('describes a task input and refuses to run without the handler of its bundle', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(subagent({ name: 'researcher', description: 'Finds facts.', model: childModel() }));
      const tool = registry.contributions(ToolsKey)[0]?.value as Tool;
      const error = await Promise.resolve()
        .then(() => tool.run?.({ task: 'x' }, undefined as never))
        .then(
          () => undefined,
          (caught: unknown) => caught as Error,
        );
      expect([tool.spec, error?.message]).toEqual([
        {
          name: 'researcher',
          description: 'Finds facts.',
          inputSchema: {
            type: 'object',
            properties: {
              task: { type: 'string', minLength: 1, description: 'The task, with everything the sub-agent needs to know to do it.' },
            },
            required: ['task'],
            additionalProperties: false,
          },
        },
        'tool "researcher" runs a sub-agent through the "subagent" handler of its bundle, which was not in the chain of this call',
      ]);
    });
  });

  describe('a child that fails', () => {
    it('answers the call with an error result, and the parent goes on', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(
        subagent({
          name: 'researcher',
          description: 'Finds facts.',
          model: new ScriptedModel([{ events: [], error: new Error('search engine down') }]),
        }),
      );
      const model = delegating({ task: 'capital of Norway?' }, 'I could not find out.');
      const result = await new Agent({ model, registry }).invoke('Ask.');
      expect([result.stopReason, model.calls[1]?.request.messages.at(-1)?.content, result.middlewareUsage]).toEqual([
        'endTurn',
        [
          {
            type: 'toolResult',
            toolUseId: 't1',
            name: 'researcher',
            status: 'error',
            content: [{ type: 'text', text: 'Tool "researcher" failed: search engine down' }],
          },
        ],
        undefined,
      ]);
    });
  });

  describe('the tools of the child', () => {
    it('are its own and those of its middleware, never the parent ones', async () => {
      const child = new ScriptedModel([textTurn('Oslo.')]);
      const extra: Middleware = {
        name: 'extra',
        setup: (registrar) => void registrar.provide(ToolsKey, new ScriptedTool({ name: 'maps' })),
      };
      const registry = new MiddlewareRegistry();
      registry.use({ name: 'parentTools', setup: (registrar) => void registrar.provide(ToolsKey, new ScriptedTool({ name: 'email' })) });
      registry.use(
        subagent({
          name: 'researcher',
          description: 'Finds facts.',
          model: child,
          tools: [new ScriptedTool({ name: 'search' })],
          middleware: [extra],
        }),
      );
      await new Agent({ model: delegating({ task: 'capital?' }), registry, tools: [new ScriptedTool({ name: 'calendar' })] }).invoke(
        'Ask.',
      );
      expect(child.calls[0]?.request.toolSpecs.map((spec) => spec.name)).toEqual(['search', 'maps']);
    });
  });

  describe('inheriting handlers', () => {
    it("sees the handlers of the parent's run, its own bundles included", async () => {
      const seen: string[] = [];
      const watching: Middleware = {
        name: 'watching',
        setup: (registrar) => void registrar.add(InvokeModelStage.Input, (context) => (seen.push(context.agent?.name ?? '?'), context)),
      };
      const registry = new MiddlewareRegistry();
      registry.use(subagent({ name: 'researcher', description: 'Finds facts.', model: childModel() }));
      await new Agent({ name: 'boss', model: delegating({ task: 'capital?' }), registry }).invoke('Ask.', { use: [watching] });
      expect(seen).toEqual(['boss', 'researcher', 'boss']);
    });
  });

  describe('a child that asks twice', () => {
    it('halts the parent for each question and goes on where it was', async () => {
      const child = new ScriptedModel([
        toolUseTurn([{ name: 'ask', input: { q: 1 }, toolUseId: 'c1' }]),
        toolUseTurn([{ name: 'ask', input: { q: 2 }, toolUseId: 'c2' }]),
        textTurn('Both answered.'),
      ]);
      const ask = new ScriptedTool({
        name: 'ask',
        respond: (input, context) => context.interrupt({ name: 'human', reason: input }).response,
      });
      const registry = new MiddlewareRegistry();
      registry.use(subagent({ name: 'researcher', description: 'Asks.', model: child, tools: [ask] }));
      const agent = new Agent({ model: delegating({ task: 'ask twice' }), registry });
      const first = await agent.invoke('Go.');
      const second = await agent.resume({ 'executeTool:t1:researcher:executeTool:c1:human': 'one' });
      const third = await agent.resume({ 'executeTool:t1:researcher:executeTool:c2:human': 'two' });
      expect([
        first.interrupts.map((interrupt) => [interrupt.id, interrupt.reason]),
        second.interrupts.map((interrupt) => [interrupt.id, interrupt.reason]),
        third.stopReason,
        agent.messages.at(-2)?.content,
      ]).toEqual([
        [['executeTool:t1:researcher:executeTool:c1:human', { q: 1 }]],
        [['executeTool:t1:researcher:executeTool:c2:human', { q: 2 }]],
        'endTurn',
        [
          {
            type: 'toolResult',
            toolUseId: 't1',
            name: 'researcher',
            status: 'success',
            content: [{ type: 'text', text: 'Both answered.' }],
          },
        ],
      ]);
    });

    it('keeps the child in the invocation state while it waits, and removes it after', async () => {
      const child = new ScriptedModel([toolUseTurn([{ name: 'ask', input: {}, toolUseId: 'c1' }]), textTurn('ok')]);
      const ask = new ScriptedTool({ name: 'ask', respond: (_input, context) => context.interrupt({ name: 'human' }).response });
      const registry = new MiddlewareRegistry();
      registry.use(subagent({ name: 'researcher', description: 'Asks.', model: child, tools: [ask] }));
      const invocationState: Record<string, unknown> = {};
      const agent = new Agent({ model: delegating({ task: 'ask' }), registry });
      await agent.invoke('Go.', { invocationState });
      const waiting = Object.keys(invocationState[SUBAGENT_STATE_KEY] as object);
      await agent.resume({ 'executeTool:t1:researcher:executeTool:c1:human': 'yes' });
      expect([waiting, invocationState[SUBAGENT_STATE_KEY]]).toEqual([['t1'], {}]);
    });

    it('keeps a child waiting under the tool-use id "__proto__" as an own key, across a snapshot (MW-139)', async () => {
      const child = new ScriptedModel([toolUseTurn([{ name: 'ask', input: {}, toolUseId: 'c1' }]), textTurn('ok')]);
      const ask = new ScriptedTool({ name: 'ask', respond: (_input, context) => context.interrupt({ name: 'human' }).response });
      const registry = new MiddlewareRegistry();
      registry.use(subagent({ name: 'researcher', description: 'Asks.', model: child, tools: [ask] }));
      const parent = new ScriptedModel([
        toolUseTurn([{ name: 'researcher', input: { task: 'ask' }, toolUseId: '__proto__' }]),
        textTurn('Done.'),
      ]);
      const agent = new Agent({ model: parent, registry });
      await agent.invoke('Go.');
      const restored = new Agent({ model: parent, registry, snapshot: JSON.parse(JSON.stringify(agent.snapshot())) as never });
      const result = await restored.resume({ 'executeTool:__proto__:researcher:executeTool:c1:human': 'yes' });
      expect([result.stopReason, child.calls.map((call) => call.request.messages.length), restored.messages.at(-2)?.content]).toEqual([
        'endTurn',
        [1, 3],
        [{ type: 'toolResult', toolUseId: '__proto__', name: 'researcher', status: 'success', content: [{ type: 'text', text: 'ok' }] }],
      ]);
    });

    it('starts the delegation afresh when the resume is given an invocation state of its own, a known answer going on at once', async () => {
      const child = new ScriptedModel([
        toolUseTurn([{ name: 'ask', input: {}, toolUseId: 'c1' }]),
        toolUseTurn([{ name: 'ask', input: {}, toolUseId: 'c1' }]),
        textTurn('fresh'),
      ]);
      const ask = new ScriptedTool({ name: 'ask', respond: (_input, context) => context.interrupt({ name: 'human' }).response });
      const registry = new MiddlewareRegistry();
      registry.use(subagent({ name: 'researcher', description: 'Asks.', model: child, tools: [ask] }));
      const agent = new Agent({ model: delegating({ task: 'ask' }), registry });
      await agent.invoke('Go.');
      const again = await agent.resume({ 'executeTool:t1:researcher:executeTool:c1:human': 'yes' }, { invocationState: {} });
      expect([again.stopReason, child.calls.map((call) => call.request.messages.length), agent.messages.at(-2)?.content]).toEqual([
        'endTurn',
        [1, 1, 3],
        [{ type: 'toolResult', toolUseId: 't1', name: 'researcher', status: 'success', content: [{ type: 'text', text: 'fresh' }] }],
      ]);
    });
  });
});

describe('subagent with a typed input', () => {
  const forecaster = (model: ScriptedModel) =>
    subagent({
      name: 'researcher',
      description: 'Forecasts.',
      model,
      input: z.object({ city: z.string(), days: z.number().int().min(1) }),
      prompt: ({ city, days }) => `${days} days in ${city}`,
    });

  it('shows the schema to the model and gives the child what prompt makes of the parsed input', async () => {
    const child = new ScriptedModel([textTurn('Sun.')]);
    const registry = new MiddlewareRegistry();
    registry.use(forecaster(child));
    const parent = delegating({ city: 'Oslo', days: 2 });
    await new Agent({ model: parent, registry }).invoke('Weather?');
    expect([parent.calls[0]?.request.toolSpecs[0]?.inputSchema, child.calls[0]?.request.messages]).toEqual([
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 9007199254740991 } },
        required: ['city', 'days'],
      },
      [{ role: 'user', content: [{ type: 'text', text: '2 days in Oslo' }] }],
    ]);
  });

  it('answers input the schema rejects with its issues and runs no child', async () => {
    const child = new ScriptedModel([textTurn('Sun.')]);
    const registry = new MiddlewareRegistry();
    registry.use(forecaster(child));
    const agent = new Agent({ model: delegating({ city: 'Oslo', days: 0 }), registry });
    await agent.invoke('Weather?');
    const block = agent.messages[2]?.content[0];
    expect([
      child.calls.length,
      block?.type === 'toolResult' && block.status,
      block?.type === 'toolResult' && block.content[0]?.type === 'text' && block.content[0].text.includes('ERR_TOOL_INPUT_INVALID'),
    ]).toEqual([0, 'error', true]);
  });
});

describe('subagent with result details', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['JSON text', '{"files":42}', { agent: 'researcher', text: '{"files":42}', stopReason: 'endTurn', output: { files: 42 } }],
    ['plain text', 'forty-two', { agent: 'researcher', text: 'forty-two', stopReason: 'endTurn' }],
  ])('answers with the name, the text, the stop reason and the output of %s', async (_label, text, expected) => {
    const registry = new MiddlewareRegistry();
    registry.use(subagent({ name: 'researcher', description: 'Counts.', model: new ScriptedModel([textTurn(text)]), result: 'details' }));
    const agent = new Agent({ model: delegating({ task: 'count' }), registry });
    await agent.invoke('How many?');
    const block = agent.messages[2]?.content[0];
    expect(block?.type === 'toolResult' ? block.content : undefined).toEqual([{ type: 'json', json: expected }]);
  });
});

describe('subagent with events', () => {
  it("puts the child's events on the parent's stream, marked as the child's, before the call's result", async () => {
    const registry = new MiddlewareRegistry();
    registry.use(subagent({ name: 'researcher', description: 'Finds.', model: new ScriptedModel([textTurn('Oslo.')]), events: true }));
    const seen: string[] = [];
    for await (const event of new Agent({ model: delegating({ task: 'capital?' }), registry }).stream('Ask.')) {
      const shown: AgentEvent = event;
      if (shown.type === 'subagentEvent') seen.push(`${shown.agent}/${shown.toolUseId}: ${shown.event.type}`);
      else if (shown.type === 'toolResult') seen.push(`toolResult ${shown.toolResult.toolUseId}`);
    }
    expect(seen).toEqual([
      'researcher/t1: messageStart',
      'researcher/t1: textDelta',
      'researcher/t1: messageStop',
      'researcher/t1: modelResult',
      'researcher/t1: agentResult',
      'toolResult t1',
    ]);
  });

  it('forwards each event while the child is still running', async () => {
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const child = {
      async *stream() {
        yield { type: 'messageStart', role: 'assistant' } as const;
        await gate;
        yield { type: 'textDelta', text: 'late' } as const;
        yield { type: 'messageStop', stopReason: 'endTurn' } as const;
      },
    };
    const registry = new MiddlewareRegistry();
    registry.use(subagent({ name: 'researcher', description: 'Finds.', model: child, events: true }));
    const stream = new Agent({ model: delegating({ task: 'capital?' }), registry }).stream('Ask.');
    let first: AgentEvent | undefined;
    for await (const event of stream) {
      if (event.type === 'subagentEvent') {
        // Reached while the child waits at the gate: the event was forwarded before the child went on.
        first = event.event;
        release?.();
        break;
      }
    }
    expect(first).toEqual({ type: 'messageStart', role: 'assistant' });
  });
});
