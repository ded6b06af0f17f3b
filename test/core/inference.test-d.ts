import { describe, expectTypeOf, it } from 'vitest';
import type { Draft } from 'immer';
import {
  createStage,
  MiddlewareRegistry,
  registration,
  type DeepReadonly,
  type MiddlewareResult,
  type Terminal,
  type TerminalArgument,
} from '../../src/core/index';
import { ExecuteToolStage, type ToolResultEvent } from '../../src/agent/index';
import { runStage, scriptedTerminal, throws } from '../../src/testing/index';

// The README's stage: a discriminated union of events, the result one of them.
type Chunk = { type: 'text'; text: string } | { type: 'done'; text: string };
type Done = Extract<Chunk, { type: 'done' }>;
const ReplyStage = createStage<{ prompt: string }, Done, Chunk>('reply', {
  isResult: (event): event is Done => event.type === 'done',
});

declare const registry: MiddlewareRegistry;

describe('MiddlewareRegistry.run and invoke', () => {
  describe('with an unannotated inline terminal', () => {
    it('take the event type from the stage, so a yielded literal keeps its type', () => {
      const result = registry.run(ReplyStage, { prompt: 'hi' }, async function* (context) {
        yield { type: 'text', text: context.prompt };
        yield { type: 'done', text: 'hi' };
      });
      expectTypeOf(result).toEqualTypeOf<Promise<{ readonly type: 'done'; readonly text: string }>>();
      const events = registry.invoke(ReplyStage, { prompt: 'hi' }, async function* () {
        yield { type: 'done', text: 'hi' };
      });
      expectTypeOf(events).toEqualTypeOf<AsyncGenerator<Chunk, void, undefined>>();
    });

    it('type the context and the state draft (the Model-state isolation example)', () => {
      let modelState = { turns: 0 };
      void registry.run(
        ReplyStage,
        { prompt: 'hi' },
        async function* (context, run) {
          expectTypeOf(context).toEqualTypeOf<{ prompt: string }>();
          expectTypeOf(run.state).toEqualTypeOf<Draft<{ turns: number }> | undefined>();
          if (run.state) run.state.turns += 1;
          yield { type: 'done', text: 'hi' };
        },
        {
          state: {
            get: () => modelState,
            set: (next) => {
              modelState = next;
            },
          },
        },
      );
    });

    it('take events with arrays and nested objects as they are, and run resolves to the result read-only all the way down', () => {
      interface Rich {
        type: 'result';
        parts: string[];
        meta: { tokens: number };
      }
      const RichStage = createStage<{ prompt: string }, Rich>('rich');
      const result = registry.run(RichStage, { prompt: 'x' }, async function* () {
        yield { type: 'result', parts: ['a', 'b'], meta: { tokens: 1 } };
      });
      expectTypeOf(result).toEqualTypeOf<
        Promise<{ readonly type: 'result'; readonly parts: readonly string[]; readonly meta: { readonly tokens: number } }>
      >();
      const events = registry.invoke(RichStage, { prompt: 'x' }, async function* () {
        yield { type: 'result', parts: ['a', 'b'], meta: { tokens: 1 } };
      });
      expectTypeOf(events).toEqualTypeOf<AsyncGenerator<Rich, void, undefined>>();
    });

    it('serve the agent kit stages', () => {
      void registry.run(ExecuteToolStage, {} as never, async function* (context) {
        yield {
          type: 'toolResult',
          toolResult: {
            type: 'toolResult',
            toolUseId: context.toolUse.toolUseId,
            name: context.toolUse.name,
            status: 'success',
            content: [{ type: 'text', text: 'ok' }],
          },
        };
      });
      expectTypeOf(registry.run(ExecuteToolStage, {} as never, async function* () {})).toEqualTypeOf<Promise<ToolResultEvent>>();
    });
  });

  describe('with a terminal that does not fit the stage', () => {
    it('reject it with a one-line message naming the cause', () => {
      // @ts-expect-error: 'other' is not the type of any event of the reply stage
      void registry.run(ReplyStage, { prompt: 'hi' }, async function* () {
        yield { type: 'other', text: 'hi' };
      });
      async function* strings(): AsyncGenerator<string> {
        yield 'hi';
      }
      // @ts-expect-error: the terminal yields strings, the stage events are objects
      void registry.run(ReplyStage, { prompt: 'hi' }, strings);
      // @ts-expect-error: the terminal does not accept the stage context
      void registry.invoke(ReplyStage, { prompt: 'hi' }, async function* (context: { other: number }) {
        yield { type: 'done', text: String(context.other) };
      });
      // @ts-expect-error: a terminal returns an async iterable, not a promise
      void registry.run(ReplyStage, { prompt: 'hi' }, async () => ({ type: 'done', text: 'hi' }));
      // @ts-expect-error: a terminal is a function
      void registry.run(ReplyStage, { prompt: 'hi' }, { type: 'done', text: 'hi' });
      // @ts-expect-error: the context comes from the stage and lacks nothing, but this one has the wrong field
      void registry.run(ReplyStage, { question: 'hi' }, async function* () {
        yield { type: 'done', text: 'hi' };
      });
    });

    it('resolve the parameter type to the message', () => {
      interface Context {
        prompt: string;
      }
      expectTypeOf<TerminalArgument<Terminal<Context, Chunk>, Context, Chunk, unknown>>().toEqualTypeOf<Terminal<Context, Chunk>>();
      expectTypeOf<TerminalArgument<Terminal<Context, Done>, Context, Chunk, unknown>>().toEqualTypeOf<Terminal<Context, Done>>();
      expectTypeOf<
        TerminalArgument<Terminal<Context, string>, Context, Chunk, unknown>
      >().toEqualTypeOf<'Terminal yields events that are not events of this stage (compare its yields with EventOf<typeof Stage>)'>();
      expectTypeOf<
        TerminalArgument<() => Promise<Done>, Context, Chunk, unknown>
      >().toEqualTypeOf<'Terminal must return an async iterable of events of this stage (write it as an async function*)'>();
      expectTypeOf<
        TerminalArgument<Terminal<Context, Chunk, { count: number }>, Context, Chunk, { turns: number }>
      >().toEqualTypeOf<'Terminal run parameter does not fit TerminalCall<TState> (its state type must be that of the state option)'>();
      expectTypeOf<
        TerminalArgument<Terminal<{ other: number }, Chunk>, Context, Chunk, unknown>
      >().toEqualTypeOf<'Terminal does not accept the context of this stage as its first parameter (compare it with ContextOf<typeof Stage>)'>();
      expectTypeOf<
        TerminalArgument<number, Context, Chunk, unknown>
      >().toEqualTypeOf<'Terminal must be a function (context, run) returning an async iterable of events of this stage'>();
    });

    it('accept a terminal typed for some state when no state option is given (its run.state is undefined then)', () => {
      expectTypeOf<
        TerminalArgument<Terminal<{ prompt: string }, Chunk, { count: number }>, { prompt: string }, Chunk, unknown>
      >().toEqualTypeOf<Terminal<{ prompt: string }, Chunk, { count: number }>>();
    });
  });
});

describe('MiddlewareRegistry.add and on', () => {
  it('infer an inline Wrap handler that yields its own literal events', () => {
    registry.add(ReplyStage.Wrap, async function* cached(context, next) {
      if (context.prompt === '') {
        yield { type: 'done', text: 'empty' };
        return;
      }
      yield* next();
    });
    void registry.run(
      ReplyStage,
      { prompt: 'hi' },
      async function* () {
        yield { type: 'done', text: 'hi' };
      },
      {
        use: [
          registration(ReplyStage.Wrap, async function* shortCircuit() {
            yield { type: 'done', text: 'short' };
          }),
          registration(ReplyStage.Output, (result) => result.replace({ type: 'done', text: 'replaced' })),
        ],
      },
    );
    // @ts-expect-error: 'other' is not an event of the reply stage
    registry.add(ReplyStage.Wrap, async function* wrong() {
      yield { type: 'other', text: '' };
    });
  });

  it('infer an inline Output handler that replaces the result with a literal', () => {
    registry.add(ReplyStage.Output, (result) => {
      expectTypeOf(result).toEqualTypeOf<MiddlewareResult<Done>>();
      return result.replace({ type: 'done', text: result.value.text.trim() });
    });
  });
});

describe('runStage and scriptedTerminal', () => {
  it('take an unannotated inline terminal and infer the result type', async () => {
    const run = await runStage(ReplyStage, {
      context: { prompt: 'hi' },
      terminal: async function* (context) {
        yield { type: 'done', text: context.prompt };
      },
    });
    expectTypeOf(run.result).toEqualTypeOf<DeepReadonly<Done> | undefined>();
    expectTypeOf(run.events).toEqualTypeOf<Chunk[]>();
  });

  it('type the state from the state option', async () => {
    const run = await runStage(ReplyStage, {
      context: { prompt: 'hi' },
      state: { turns: 0 },
      terminal: async function* (_context, call) {
        expectTypeOf(call.state).toEqualTypeOf<Draft<{ turns: number }> | undefined>();
        yield { type: 'done', text: 'hi' };
      },
    });
    expectTypeOf(run.state).toEqualTypeOf<{ turns: number } | undefined>();
  });

  it('take a scripted terminal whose steps are literal events', async () => {
    const terminal = scriptedTerminal([
      [throws(new Error('down'))],
      [
        { type: 'text', text: 'Hel' },
        { type: 'done', text: 'Hello' },
      ],
    ]);
    const run = await runStage(ReplyStage, { context: { prompt: 'hi' }, terminal });
    expectTypeOf(run.result).toEqualTypeOf<DeepReadonly<Done> | undefined>();
    void registry.run(ReplyStage, { prompt: 'hi' }, terminal);
  });

  it('reject a scripted terminal with a step that is no event of the stage', async () => {
    const terminal = scriptedTerminal([[{ type: 'other', text: 'x' }]]);
    // @ts-expect-error: the script yields an event the reply stage does not have
    await runStage(ReplyStage, { context: { prompt: 'hi' }, terminal });
  });
});
