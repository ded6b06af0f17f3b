import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareRegistry, type ContextOf, type EventOf, type ResultOf, type WrapHandler } from '../../src/core/index';
import { fallback, regenerate, retry, type AttemptBoundaryEvent } from '../../src/middleware/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  InvokeModelStage,
  TurnStage,
  turnAction,
  defineTool,
  type Tool,
  type AgentEvent,
  type InterruptAnswer,
  type TurnContext,
  type TurnResultEvent,
  type ExecuteToolEvent,
  type AgentResultEvent,
  type AgentStreamContext,
  type ExecuteToolContext,
  type InvokeModelContext,
  type InvokeModelEvent,
  type ModelResultEvent,
  type ToolResultEvent,
} from '../../src/agent/index';
import { ScriptedModel } from '../../src/testing/index';

describe('agent stages', () => {
  describe('type extraction', () => {
    it('gives each stage its context, result and event types', () => {
      expectTypeOf<ContextOf<typeof InvokeModelStage>>().toEqualTypeOf<InvokeModelContext>();
      expectTypeOf<ResultOf<typeof InvokeModelStage>>().toEqualTypeOf<ModelResultEvent>();
      expectTypeOf<EventOf<typeof InvokeModelStage>>().toEqualTypeOf<InvokeModelEvent>();
      expectTypeOf<ContextOf<typeof ExecuteToolStage>>().toEqualTypeOf<ExecuteToolContext>();
      expectTypeOf<ResultOf<typeof ExecuteToolStage>>().toEqualTypeOf<ToolResultEvent>();
      expectTypeOf<ContextOf<typeof AgentStreamStage>>().toEqualTypeOf<AgentStreamContext>();
      expectTypeOf<ResultOf<typeof AgentStreamStage>>().toEqualTypeOf<AgentResultEvent>();
      expectTypeOf<EventOf<typeof AgentStreamStage>>().toEqualTypeOf<AgentEvent>();
      expectTypeOf<ContextOf<typeof TurnStage>>().toEqualTypeOf<TurnContext>();
      expectTypeOf<ResultOf<typeof TurnStage>>().toEqualTypeOf<TurnResultEvent>();
      expectTypeOf<EventOf<typeof ExecuteToolStage>>().toEqualTypeOf<ExecuteToolEvent>();
      expectTypeOf<EventOf<typeof TurnStage>>().toEqualTypeOf<TurnResultEvent | AttemptBoundaryEvent>();
    });
  });

  describe('attempt boundaries (MW-184)', () => {
    it('admit the boundary event the built-in middleware yield on every stage that retries', () => {
      expectTypeOf<AttemptBoundaryEvent>().toExtend<EventOf<typeof InvokeModelStage>>();
      expectTypeOf<AttemptBoundaryEvent>().toExtend<EventOf<typeof ExecuteToolStage>>();
      expectTypeOf<AttemptBoundaryEvent>().toExtend<EventOf<typeof TurnStage>>();
      expectTypeOf<AttemptBoundaryEvent>().toExtend<AgentEvent>();
    });

    it('let live retry, fallback and regenerate register on every standard stage', () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, retry({ stream: 'live' }));
      registry.add(ExecuteToolStage.Wrap, retry({ stream: 'live' }));
      registry.add(TurnStage.Wrap, retry({ stream: 'live' }));
      registry.add(AgentStreamStage.Wrap, retry({ stream: 'live' }));
      registry.add(InvokeModelStage.Wrap, fallback([(context: InvokeModelContext) => context], { stream: 'live' }));
      registry.add(
        InvokeModelStage.Wrap,
        regenerate({ check: () => undefined, feedback: (context: InvokeModelContext) => context, stream: 'live' }),
      );
    });

    it('lets a turn action decide only what a turn action is', () => {
      turnAction(() => ({ decision: 'loopToModel' }));
      // @ts-expect-error: 'sideways' is no decision
      turnAction(() => ({ decision: 'sideways' }));
      expectTypeOf(turnAction(() => undefined)).toEqualTypeOf<WrapHandler<TurnContext, TurnResultEvent | AttemptBoundaryEvent>>();
    });

    it('asks several questions at once and gets one answer per question', () => {
      const ask = (context: AgentStreamContext) => context.interrupt([{ name: 'a' }, { name: 'b' }]);
      expectTypeOf<ReturnType<typeof ask>>().toEqualTypeOf<readonly InterruptAnswer[]>();
      const askOne = (context: AgentStreamContext) => context.interrupt({ name: 'a' });
      expectTypeOf<ReturnType<typeof askOne>>().toEqualTypeOf<InterruptAnswer>();
    });
  });

  describe('handlers', () => {
    it('types handler parameters from the stage token', () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => {
        expectTypeOf(context).toEqualTypeOf<InvokeModelContext>();
        return context;
      });
      registry.add(InvokeModelStage.Output, (result) => {
        expectTypeOf(result.value).toEqualTypeOf<ModelResultEvent>();
        return result;
      });
      registry.add(ExecuteToolStage.Wrap, async function* guard(context, next) {
        expectTypeOf(context.interrupt({ name: 'approve' })).toEqualTypeOf<{ readonly response: unknown }>();
        yield* next();
      });
    });

    it('rejects in-place changes and wrong shapes at compile time', () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => {
        // @ts-expect-error: the messages of a context are a readonly array; produce a new context instead.
        context.messages.push({ role: 'user', content: [] });
        return context;
      });
      // @ts-expect-error: an Input handler must return the stage's context.
      registry.add(InvokeModelStage.Input, () => ({ messages: [] }));
      // @ts-expect-error: ExecuteToolStage yields tool results, not model stream events.
      registry.add(ExecuteToolStage.Wrap, async function* wrongEvent() {
        yield { type: 'textDelta', text: 'x' };
      });
    });
  });
});

describe('Agent', () => {
  describe('results', () => {
    it('resolves invoke and resume to the agent result and streams agent events', () => {
      const agent = new Agent({ model: new ScriptedModel([]) });
      expectTypeOf(agent.invoke('hi')).toEqualTypeOf<Promise<AgentResultEvent>>();
      expectTypeOf(agent.resume({})).toEqualTypeOf<Promise<AgentResultEvent>>();
      expectTypeOf(agent.stream('hi')).toEqualTypeOf<AsyncGenerator<AgentEvent, void, undefined>>();
      // @ts-expect-error: the history is readonly; it changes only through runs.
      agent.messages.push({ role: 'user', content: [] });
    });
  });
});

describe('defineTool', () => {
  describe('run', () => {
    it('gets the input the zod schema parses to', () => {
      defineTool({
        name: 'forecast',
        description: 'Forecast.',
        input: z.object({ city: z.string(), days: z.number().default(3), at: z.string().transform((text) => text.length) }),
        run: (input) => {
          expectTypeOf(input).toEqualTypeOf<{ city: string; days: number; at: number }>();
          // @ts-expect-error: the schema has no country.
          return input.country;
        },
      });
    });

    it('returns a tool the agent takes', () => {
      expectTypeOf(defineTool({ name: 't', description: 'd', input: z.object({}) })).toEqualTypeOf<Tool>();
      // @ts-expect-error: a JSON Schema is not a zod schema; describe the input with zod.
      defineTool({ name: 't', description: 'd', input: { type: 'object' } });
    });
  });
});
