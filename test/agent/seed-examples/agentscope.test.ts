/**
 * AgentScope's onion hooks, ported: `on_reply` around a whole reply (every
 * ReAct step, every tool call and the final output), `on_model_call` and
 * `on_acting` inside it, `on_system_prompt` as a transformer, each hook
 * given the agent; two middlewares nest with the first outermost. And its
 * external execution: a tool the caller runs, which `on_acting` still sees.
 * And the tool source and compression hooks: `list_tools` as tools a bundle
 * provides, `on_compress_context` as a CompressContextStage Wrap handler.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type Middleware } from '../../../src/core/index';
import {
  Agent,
  AgentStreamStage,
  CompressContextStage,
  ContextBudgetKey,
  EXTERNAL_TOOL,
  ExecuteToolStage,
  InvokeModelStage,
  ToolsKey,
  compaction,
  resolveTools,
  type Tool,
} from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';

/** AgentScope's FullObservabilityMiddleware, named `label`: logs the start and end of each hook it wraps. */
function fullObservability(label: string, log: string[]): Middleware {
  return {
    name: label,
    setup(registrar) {
      registrar.add(AgentStreamStage.Wrap, async function* onReply(context, next) {
        log.push(`${label} [reply] start for ${context.agent?.name ?? '?'}`);
        yield* next();
        log.push(`${label} [reply] end for ${context.agent?.name ?? '?'}`);
      });
      registrar.add(InvokeModelStage.Wrap, async function* onModelCall(context, next) {
        log.push(`${label} [model_call] ${context.messages.length} messages`);
        yield* next();
        log.push(`${label} [model_call] done`);
      });
      registrar.add(ExecuteToolStage.Wrap, async function* onActing(context, next) {
        log.push(`${label} [acting] ${context.toolUse.name}`);
        yield* next();
        log.push(`${label} [acting] done`);
      });
      registrar.add(InvokeModelStage.Input, function onSystemPrompt(context) {
        return { ...context, systemPrompt: [...context.systemPrompt, { text: `(${label} was here)` }] };
      });
    },
  };
}

describe('AgentScope middleware, ported', () => {
  it('nests two middlewares as an onion around the whole reply: mw1 pre, mw2 pre, inner, mw2 post, mw1 post', async () => {
    const log: string[] = [];
    const registry = new MiddlewareRegistry();
    registry.use(fullObservability('mw1', log));
    registry.use(fullObservability('mw2', log));
    const model = new ScriptedModel([toolUseTurn([{ name: 'clock', input: {} }]), textTurn('It is noon.')]);
    const agent = new Agent({
      name: 'assistant',
      systemPrompt: 'You are a helpful assistant.',
      model,
      tools: [new ScriptedTool({ name: 'clock', respond: () => 'noon' })],
      registry,
    });
    await agent.invoke('What time is it?');
    expect([log, model.calls[0]?.request.systemPrompt]).toEqual([
      [
        'mw1 [reply] start for assistant',
        'mw2 [reply] start for assistant',
        'mw1 [model_call] 1 messages',
        'mw2 [model_call] 1 messages',
        'mw2 [model_call] done',
        'mw1 [model_call] done',
        'mw1 [acting] clock',
        'mw2 [acting] clock',
        'mw2 [acting] done',
        'mw1 [acting] done',
        'mw1 [model_call] 3 messages',
        'mw2 [model_call] 3 messages',
        'mw2 [model_call] done',
        'mw1 [model_call] done',
        'mw2 [reply] end for assistant',
        'mw1 [reply] end for assistant',
      ],
      'You are a helpful assistant.\n(mw1 was here)\n(mw2 was here)',
    ]);
  });

  it('halts on a tool executed outside the agent and resumes with its result, which on_acting sees', async () => {
    const log: string[] = [];
    const registry = new MiddlewareRegistry();
    registry.use(fullObservability('mw1', log));
    const geolocate: Tool = { spec: { name: 'geolocate', description: "The browser's position.", inputSchema: { type: 'object' } } };
    const agent = new Agent({
      name: 'assistant',
      model: new ScriptedModel([toolUseTurn([{ name: 'geolocate', input: {}, toolUseId: 'g1' }]), textTurn('You are in Oslo.')]),
      tools: [geolocate],
      registry,
    });
    const halted = await agent.invoke('Where am I?');
    const external = halted.interrupts.filter((interrupt) => interrupt.name === EXTERNAL_TOOL);
    const result = await agent.resume(Object.fromEntries(external.map((interrupt) => [interrupt.id, { lat: 59.91, lon: 10.75 }])));
    expect([external.map((interrupt) => interrupt.reason), result.stopReason, log.filter((line) => line.includes('[acting]'))]).toEqual([
      [{ type: 'toolUse', toolUseId: 'g1', name: 'geolocate', input: {} }],
      'endTurn',
      ['mw1 [acting] geolocate', 'mw1 [acting] geolocate', 'mw1 [acting] done'],
    ]);
  });
});

/** The compression and tool-source hooks of FullObservabilityMiddleware: `on_compress_context` logs around the decision, `list_tools` contributes `clock`. */
function compressionAndTools(log: string[]): Middleware {
  return {
    name: 'FullObservabilityMiddleware',
    setup(registrar) {
      // AgentScope asks on_compress_context before every reasoning step; a budget of 0 makes this agent ask too.
      registrar.provide(ContextBudgetKey, { maxTokens: 0 });
      registrar.add(CompressContextStage.Wrap, async function* onCompressContext(context, next) {
        log.push(`[compress_context] checking context for ${context.agent?.name ?? '?'} (${context.messages.length} messages)`);
        yield* next();
        log.push('[compress_context] done');
      });
      registrar.provide(ToolsKey, new ScriptedTool({ name: 'clock', description: 'The time.', respond: () => 'noon' }));
    },
  };
}

describe('AgentScope tool source and context compression, ported', () => {
  it('gives the agent the tools its middleware lists, and wraps the compression decision before each model call', async () => {
    const log: string[] = [];
    const registry = new MiddlewareRegistry();
    registry.use(compressionAndTools(log));
    const model = new ScriptedModel([toolUseTurn([{ name: 'clock', input: {} }]), textTurn('It is noon.')]);
    const agent = new Agent({ name: 'assistant', model, registry });
    const result = await agent.invoke('What time is it?');
    expect([log, model.calls[0]?.request.toolSpecs.map((spec) => spec.name), agent.messages.length, result.stopReason]).toEqual([
      [
        '[compress_context] checking context for assistant (1 messages)',
        '[compress_context] done',
        '[compress_context] checking context for assistant (3 messages)',
        '[compress_context] done',
      ],
      ['clock'],
      4,
      'endTurn',
    ]);
  });

  it('lets the caller assembling its own toolkit collect the listed tools, after its own', () => {
    const registry = new MiddlewareRegistry();
    registry.use(compressionAndTools([]));
    const search: Tool = { spec: { name: 'search', description: 'Searches.', inputSchema: { type: 'object' } }, run: () => 'found' };
    const toolkit = resolveTools(registry, [search]);
    expect([toolkit.specs.map((spec) => spec.name), toolkit.byName.get('clock')?.spec.description]).toEqual([
      ['search', 'clock'],
      'The time.',
    ]);
  });
});

/**
 * AgentScope's on_reasoning, on_system_prompt and on_model_call of one middleware, named `label`, as InvokeModelStage
 * Wrap handlers whose orders nest them as AgentScope does: the reasoning step outermost, the system prompt assembled
 * inside it, the model call innermost.
 */
function reasoningStep(label: string, log: string[]): Middleware {
  return {
    name: label,
    setup(registrar) {
      registrar.add(
        InvokeModelStage.Wrap,
        async function* onReasoning(context, next) {
          log.push(`${label} [reasoning] start`);
          // AgentScope's input_kwargs: on_reasoning may change the tool choice of its step.
          yield* next(label === 'mw1' ? { ...context, toolChoice: { type: 'auto' } } : context);
          log.push(`${label} [reasoning] end`);
        },
        { order: -10 },
      );
      registrar.add(InvokeModelStage.Wrap, async function* onSystemPrompt(context, next) {
        log.push(
          `${label} [system_prompt] length=${context.systemPrompt.map((block) => ('text' in block ? block.text : '')).join('\n').length}`,
        );
        yield* next({ ...context, systemPrompt: [...context.systemPrompt, { text: `(${label})` }] });
      });
      registrar.add(
        InvokeModelStage.Wrap,
        async function* onModelCall(context, next) {
          log.push(`${label} [model_call] tool_choice=${JSON.stringify(context.toolChoice)}`);
          yield* next();
          log.push(`${label} [model_call] done`);
        },
        { order: 10 },
      );
    },
  };
}

describe('AgentScope on_reasoning, ported', () => {
  it('wraps the system prompt assembly and the model call of its step, mw1 outermost', async () => {
    const log: string[] = [];
    const registry = new MiddlewareRegistry();
    registry.use(reasoningStep('mw1', log));
    registry.use(reasoningStep('mw2', log));
    const model = new ScriptedModel([textTurn('Hello.')]);
    await new Agent({ systemPrompt: 'Be kind.', model, registry }).invoke('Hi.');
    expect([log, model.calls[0]?.request.systemPrompt, model.calls[0]?.request.toolChoice]).toEqual([
      [
        'mw1 [reasoning] start',
        'mw2 [reasoning] start',
        'mw1 [system_prompt] length=8',
        'mw2 [system_prompt] length=14',
        'mw1 [model_call] tool_choice={"type":"auto"}',
        'mw2 [model_call] tool_choice={"type":"auto"}',
        'mw2 [model_call] done',
        'mw1 [model_call] done',
        'mw2 [reasoning] end',
        'mw1 [reasoning] end',
      ],
      'Be kind.\n(mw1)\n(mw2)',
      { type: 'auto' },
    ]);
  });
});

describe('AgentScope on_system_prompt during context compression, ported', () => {
  it("transforms the summariser's system prompt too, as every InvokeModelStage Input handler does", async () => {
    const registry = new MiddlewareRegistry();
    // DynamicContextMiddleware: on_system_prompt appends the current context to whatever prompt is assembled.
    registry.add(InvokeModelStage.Input, function dynamicContext(context) {
      return { ...context, systemPrompt: [...context.systemPrompt, { text: '## Current Context\nTime: noon' }] };
    });
    registry.use(compaction({ maxTokens: 1, keepRecent: 1, summarize: { instructions: 'Summarise the conversation.' } }));
    const model = new ScriptedModel([textTurn('Hello.'), textTurn('They talked.'), textTurn('Fine.')]);
    const agent = new Agent({ systemPrompt: 'Be kind.', model, registry });
    await agent.invoke('Hi.');
    await agent.invoke('How are you?');
    expect(model.calls.map((call) => [call.request.systemPrompt, call.request.messages.length])).toEqual([
      ['Be kind.\n## Current Context\nTime: noon', 1],
      ['Summarise the conversation.\n## Current Context\nTime: noon', 1],
      ['Be kind.\n## Current Context\nTime: noon', 2],
    ]);
  });
});
