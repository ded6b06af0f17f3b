import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareRegistry, type Middleware } from '../../src/core/index';
import {
  CompressContextStage,
  ContextBudgetKey,
  ExecuteToolStage,
  InvokeModelStage,
  ToolsKey,
  afterToolCall,
  checkFinalAnswer,
  compaction,
  subagent,
  todoList,
  type AgentResultEvent,
  type ModelResultEvent,
  type Tool,
  type Usage,
} from '../../src/agent/index';
import { ScriptedModel } from '../../src/testing/index';

const registry = new MiddlewareRegistry();
const tool: Tool = { spec: { name: 'clock', description: 'Tells the time.', inputSchema: {} }, run: () => 'noon' };

describe('the agent middleware', () => {
  it('provides tools and budgets under typed keys', () => {
    registry.use({
      name: 'kit',
      setup(registrar) {
        registrar.provide(ToolsKey, tool);
        registrar.provide(ContextBudgetKey, { maxTokens: 1000 });
        // @ts-expect-error: a budget is not a tool
        registrar.provide(ToolsKey, { maxTokens: 1000 });
      },
    });
    expectTypeOf(registry.contributions(ToolsKey)[0]?.value).toEqualTypeOf<Tool | undefined>();
  });

  it('makes bundles of compaction, todoList and subagent', () => {
    expectTypeOf(compaction({ maxTokens: 1000 })).toEqualTypeOf<Middleware>();
    expectTypeOf(todoList()).toEqualTypeOf<Middleware>();
    expectTypeOf(subagent({ name: 'r', description: 'd', model: new ScriptedModel([]) })).toEqualTypeOf<Middleware>();
    // @ts-expect-error: a sub-agent needs a model
    subagent({ name: 'r', description: 'd' });
  });

  it("types a sub-agent's prompt by its input schema", () => {
    subagent({
      name: 'forecaster',
      description: 'd',
      model: new ScriptedModel([]),
      input: z.object({ city: z.string(), days: z.number() }),
      prompt: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ city: string; days: number }>();
        return `${input.city} for ${input.days} days`;
      },
    });
    subagent({
      name: 'forecaster',
      description: 'd',
      model: new ScriptedModel([]),
      input: z.object({ city: z.string() }),
      // @ts-expect-error: the input has no days
      prompt: (input) => `${input.days}`,
    });
  });

  it('registers afterToolCall on ExecuteToolStage outputs only', () => {
    registry.add(
      ExecuteToolStage.Output,
      afterToolCall((result) => (result.toolResult.status === 'error' ? { terminate: true } : undefined)),
    );
    registry.add(
      InvokeModelStage.Output,
      // @ts-expect-error: it transforms tool results, not model results
      afterToolCall(() => undefined),
    );
    // @ts-expect-error: status is success or error
    afterToolCall(() => ({ status: 'failed' }));
  });

  it('registers checkFinalAnswer on InvokeModelStage', () => {
    registry.add(InvokeModelStage.Wrap, checkFinalAnswer({ check: (message) => message.content.length > 0 }));
    // @ts-expect-error: it checks model results, not tool results
    registry.add(ExecuteToolStage.Wrap, checkFinalAnswer({ check: () => undefined }));
  });

  it('types the CompressContextStage context and its model calls', () => {
    registry.add(CompressContextStage.Wrap, async function* summarise(context, next) {
      expectTypeOf(context.invokeModel({ caller: 'me', messages: context.messages })).toEqualTypeOf<Promise<ModelResultEvent>>();
      expectTypeOf(context.tokens).toEqualTypeOf<number>();
      yield* next();
    });
  });

  it('reports middleware usage on the agent result', () => {
    expectTypeOf<AgentResultEvent['middlewareUsage']>().toEqualTypeOf<Readonly<Record<string, Usage>> | undefined>();
  });
});
