import { describe, expectTypeOf, it } from 'vitest';
import type { Draft } from 'immer';
import {
  createStage,
  MiddlewareRegistry,
  MiddlewareResult,
  on,
  type ChainEntry,
  type ContextOf,
  type Disposer,
  type EventOf,
  type HandlerOf,
  type InputHandler,
  type MiddlewareStage,
  type Next,
  type OutputHandler,
  type Registration,
  type ResultOf,
  type Terminal,
  type TerminalOf,
  type WrapHandler,
  type WrapRun,
  type HandlerRun,
} from '../../src/index';

interface Context {
  readonly prompt: string;
  readonly temperature: number;
}
interface Delta {
  readonly type: 'delta';
  readonly text: string;
}
interface Final {
  readonly type: 'result';
  readonly text: string;
  readonly tokens: number;
}
type Event = Delta | Final;

const ModelStage = createStage<Context, Final, Event>('model', {
  isResult: (event): event is Final => event.type === 'result',
});
const ToolStage = createStage<{ readonly tool: string }, string>('tool');

declare const registry: MiddlewareRegistry;
declare const terminal: Terminal<Context, Event>;

describe('MiddlewareRegistry.add', () => {
  it('infers an Input handler from the stage token', () => {
    registry.add(ModelStage.Input, (context) => {
      expectTypeOf(context).toEqualTypeOf<Context>();
      return { ...context, temperature: 0 };
    });
    registry.add(ModelStage.Input, async (context) => ({ ...context, prompt: context.prompt.trim() }));
  });

  it('infers a Wrap handler from the Wrap token and from the bare stage', () => {
    registry.add(ModelStage.Wrap, async function* wrapped(context, next, run) {
      expectTypeOf(context).toEqualTypeOf<Context>();
      expectTypeOf(next).toEqualTypeOf<Next<Context, Event>>();
      expectTypeOf(next()).toEqualTypeOf<AsyncGenerator<Event, void, undefined>>();
      expectTypeOf(next).parameter(0).toEqualTypeOf<Context | undefined>();
      expectTypeOf(run).toEqualTypeOf<WrapRun>();
      yield* next({ ...context, temperature: 1 }, { signal: run.signal });
    });
    registry.add(ModelStage, async function* bare(context, next) {
      expectTypeOf(context).toEqualTypeOf<Context>();
      for await (const event of next()) {
        expectTypeOf(event).toEqualTypeOf<Event>();
        yield event;
      }
    });
  });

  it("gives Input and Output handlers the invoke's run as their second parameter", () => {
    registry.add(ModelStage.Input, (context, run) => {
      expectTypeOf(run).toEqualTypeOf<HandlerRun>();
      expectTypeOf(run.signal).toEqualTypeOf<AbortSignal>();
      return context;
    });
    registry.add(ModelStage.Output, (result, run) => {
      expectTypeOf(run).toEqualTypeOf<HandlerRun>();
      expectTypeOf(run.handler).toEqualTypeOf<string>();
      return result;
    });
  });

  it('infers an Output handler receiving a MiddlewareResult of the result type', () => {
    registry.add(ModelStage.Output, (result) => {
      expectTypeOf(result).toEqualTypeOf<MiddlewareResult<Final>>();
      expectTypeOf(result.value).toEqualTypeOf<Final>();
      return result.update((draft) => {
        draft.tokens += 1;
      });
    });
    registry.add(ModelStage.Output, async (result) => result.replace({ ...result.value, text: '' }));
  });

  it('rejects an Input handler returning the wrong type', () => {
    // @ts-expect-error: an Input handler must return the stage's context, not a string
    registry.add(ModelStage.Input, (context) => context.prompt);
    // @ts-expect-error: a context missing a required field is not the stage's context
    registry.add(ModelStage.Input, () => ({ prompt: 'only' }));
  });

  it('rejects an Output handler returning a raw value', () => {
    // @ts-expect-error: an Output handler must return a MiddlewareResult, not the raw result
    registry.add(ModelStage.Output, (result) => result.value);
    // @ts-expect-error: a MiddlewareResult of another type does not fit
    registry.add(ModelStage.Output, () => new MiddlewareResult('text'));
  });

  it("rejects a Wrap handler working on another stage's events", () => {
    // @ts-expect-error: the tool stage yields strings; the model stage needs model events
    registry.add(ModelStage.Wrap, async function* wrong(_context, next) {
      yield* next();
      yield 'plain text';
    });
    const toolHandler: WrapHandler<{ readonly tool: string }, string> = async function* tool(_context, next) {
      yield* next();
    };
    // @ts-expect-error: a handler typed for the tool stage does not fit the model stage
    registry.add(ModelStage.Wrap, toolHandler);
    registry.add(ToolStage.Wrap, toolHandler);
  });

  it('rejects something that is not a stage or phase token', () => {
    // @ts-expect-error: a plain object is not a target
    registry.add({ name: 'model' }, () => undefined);
  });

  it('rejects options of the wrong shape', () => {
    const handler: WrapHandler<Context, Event> = async function* policy(_context, next) {
      yield* next();
    };
    // @ts-expect-error: next accepts only the three policies
    registry.add(ModelStage.Wrap, handler, { next: 'twice' });
    // @ts-expect-error: order is a number
    registry.add(ModelStage.Wrap, handler, { order: '1' });
  });
});

describe('MiddlewareRegistry.use and remove', () => {
  it('infers handler types through the registrar', () => {
    registry.use({
      name: 'bundle',
      setup(registrar) {
        const dispose = registrar.add(ModelStage.Input, (context) => {
          expectTypeOf(context).toEqualTypeOf<Context>();
          return context;
        });
        expectTypeOf(dispose).toEqualTypeOf<Disposer>();
        registrar.add(ModelStage.Output, (result) => {
          expectTypeOf(result).toEqualTypeOf<MiddlewareResult<Final>>();
          return result;
        });
        // @ts-expect-error: the registrar checks handlers like add does
        registrar.add(ModelStage.Output, (result) => result.value);
      },
    });
  });

  it('types remove by target and handler, or by id', () => {
    const input: InputHandler<Context> = (context) => context;
    expectTypeOf(registry.remove(ModelStage.Input, input)).toEqualTypeOf<boolean>();
    expectTypeOf(registry.remove('retry')).toEqualTypeOf<boolean>();
    // @ts-expect-error: an Input handler is not removed from the Output phase
    registry.remove(ModelStage.Output, input);
    expectTypeOf(registry.describe(ModelStage)).toEqualTypeOf<ChainEntry[]>();
    expectTypeOf(registry.explain(ModelStage)).toEqualTypeOf<string>();
  });
});

describe('MiddlewareRegistry.run and invoke', () => {
  it('return the result type and the event stream', () => {
    expectTypeOf(registry.run(ModelStage, { prompt: 'x', temperature: 0 }, terminal)).toEqualTypeOf<Promise<Final>>();
    expectTypeOf(registry.invoke(ModelStage, { prompt: 'x', temperature: 0 }, terminal)).toEqualTypeOf<
      AsyncGenerator<Event, void, undefined>
    >();
  });

  it('check the context and terminal against the stage', () => {
    // @ts-expect-error: the context lacks temperature
    void registry.run(ModelStage, { prompt: 'x' }, terminal);
    const toolTerminal: Terminal<{ readonly tool: string }, string> = async function* run() {
      yield 'done';
    };
    // @ts-expect-error: the tool terminal yields strings, not model events
    void registry.run(ModelStage, { prompt: 'x', temperature: 0 }, toolTerminal);
  });

  it('types the terminal draft from the state binding', () => {
    interface State {
      count: number;
    }
    void registry.run(
      ModelStage,
      { prompt: 'x', temperature: 0 },
      async function* stateful(context, run) {
        expectTypeOf(context).toEqualTypeOf<Context>();
        expectTypeOf(run.state).toEqualTypeOf<Draft<State> | undefined>();
        const final: Final = { type: 'result', text: context.prompt, tokens: run.state?.count ?? 0 };
        yield final;
      },
      { state: { get: (): State => ({ count: 0 }), set: (_next: State) => undefined } },
    );
  });

  it('type per-invoke registrations by their target', () => {
    const input: Registration<typeof ModelStage.Input> = [ModelStage.Input, (context) => context];
    const wrap: Registration<typeof ModelStage.Wrap> = [
      ModelStage.Wrap,
      async function* inline(_context, next) {
        yield* next();
      },
      { order: 1 },
    ];
    void registry.run(ModelStage, { prompt: 'x', temperature: 0 }, terminal, { use: [input, wrap] });
    // @ts-expect-error: an Input registration with an Output handler does not fit
    const _wrong: Registration<typeof ModelStage.Input> = [ModelStage.Input, (result: MiddlewareResult<Final>) => result];
  });
});

describe('HandlerOf, ContextOf, ResultOf, EventOf and TerminalOf', () => {
  it('give the handler type of each target', () => {
    expectTypeOf<HandlerOf<typeof ModelStage.Input>>().toEqualTypeOf<InputHandler<Context>>();
    expectTypeOf<HandlerOf<typeof ModelStage.Wrap>>().toEqualTypeOf<WrapHandler<Context, Event>>();
    expectTypeOf<HandlerOf<typeof ModelStage>>().toEqualTypeOf<WrapHandler<Context, Event>>();
    expectTypeOf<HandlerOf<typeof ModelStage.Output>>().toEqualTypeOf<OutputHandler<Final>>();
    expectTypeOf<HandlerOf<string>>().toEqualTypeOf<never>();
  });

  it('give the context, result, event and terminal types of a stage', () => {
    expectTypeOf<ContextOf<typeof ModelStage>>().toEqualTypeOf<Context>();
    expectTypeOf<ResultOf<typeof ModelStage>>().toEqualTypeOf<Final>();
    expectTypeOf<EventOf<typeof ModelStage>>().toEqualTypeOf<Event>();
    expectTypeOf<TerminalOf<typeof ModelStage>>().toEqualTypeOf<Terminal<Context, Event>>();
    expectTypeOf<TerminalOf<typeof ModelStage, { count: number }>>().toEqualTypeOf<Terminal<Context, Event, { count: number }>>();
    expectTypeOf<ResultOf<typeof ToolStage>>().toEqualTypeOf<string>();
    expectTypeOf<EventOf<typeof ToolStage>>().toEqualTypeOf<string>();
    expectTypeOf<ContextOf<number>>().toEqualTypeOf<never>();
  });
});

describe('createStage', () => {
  it('makes stages invariant in their generics', () => {
    interface Wide {
      readonly prompt: string;
    }
    interface Narrow extends Wide {
      readonly user: string;
    }
    const WideStage = createStage<Wide, string>('wide');
    const NarrowStage = createStage<Narrow, string>('narrow');
    const takesWide = (stage: MiddlewareStage<Wide, string>): string => stage.name;
    takesWide(WideStage);
    // @ts-expect-error: a Stage<Narrow> cannot stand in for a Stage<Wide>
    takesWide(NarrowStage);
    const takesNarrow = (stage: MiddlewareStage<Narrow, string>): string => stage.name;
    // @ts-expect-error: nor a Stage<Wide> for a Stage<Narrow>
    takesNarrow(WideStage);
  });

  it('types the isResult guard parameter as the event type', () => {
    createStage<Context, Final, Event>('guarded', {
      isResult: (event) => {
        expectTypeOf(event).toEqualTypeOf<Event>();
        return event.type === 'result';
      },
    });
    createStage<Context, Final, Event>('guarded', {
      // @ts-expect-error: the guard must accept the stage's events
      isResult: (event: number) => event > 0,
    });
  });

  it('requires the result type to be one of the events', () => {
    // @ts-expect-error: a result that is not an event cannot be the last event
    createStage<Context, { readonly other: true }, Event>('broken');
  });

  it('infers the result and event types from a guard without generics', () => {
    const Guarded = createStage('guarded', { isResult: (event: Event): event is Final => event.type === 'result' });
    expectTypeOf<ResultOf<typeof Guarded>>().toEqualTypeOf<Final>();
    expectTypeOf<EventOf<typeof Guarded>>().toEqualTypeOf<Event>();
    // A plain boolean check that is no type predicate makes every event a possible result.
    const Loose = createStage('loose', { isResult: (event: Event) => event.type.length > 5 });
    expectTypeOf<ResultOf<typeof Loose>>().toEqualTypeOf<Event>();
  });

  it('lets a guard narrow events for the caller', () => {
    const isFinal = (event: Event): event is Final => event.type === 'result';
    createStage<Context, Final, Event>('narrowing', { isResult: isFinal });
    const event = { type: 'result', text: '', tokens: 1 } as Event;
    if (isFinal(event)) expectTypeOf(event).toEqualTypeOf<Final>();
    else expectTypeOf(event).toEqualTypeOf<Delta>();
  });

  it('types the schemas by the stage types', () => {
    createStage<Context, Final, Event>('schemas', {
      // @ts-expect-error: a schema parsing to a string does not fit a Context stage
      context: { safeParse: (value: unknown) => ({ success: true as const, data: String(value) }) },
    });
  });
});

describe('on', () => {
  it('infers a per-invoke handler from its target', () => {
    const InferStage = createStage<{ prompt: string }, { done: true }, { done: true } | { text: string }>('infer');
    on(InferStage.Input, (context) => {
      expectTypeOf(context).toEqualTypeOf<{ prompt: string }>();
      return context;
    });
    on(InferStage.Output, (result) => {
      expectTypeOf(result.value).toEqualTypeOf<{ readonly done: true }>();
      return result;
    });
    // @ts-expect-error: an Input handler must return the stage's context
    on(InferStage.Input, () => 42);
  });
});
