import { describe, expectTypeOf, it } from 'vitest';
import {
  createStage,
  registration,
  type ContextOf,
  type EventOf,
  type HandlerOf,
  type InputHandler,
  type MiddlewareStage,
  type OutputHandler,
  type ResultOf,
  type Terminal,
  type TerminalOf,
  type WrapHandler,
} from '../../src/core/index';
import { ModelStage, ToolStage, type Context, type Delta, type Event, type Final } from './type-test-stages';

declare const terminal: Terminal<Context, Event>;

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
    registration(InferStage.Input, (context) => {
      expectTypeOf(context).toEqualTypeOf<{ prompt: string }>();
      return context;
    });
    registration(InferStage.Output, (result) => {
      expectTypeOf(result.value).toEqualTypeOf<{ readonly done: true }>();
      return result;
    });
    // @ts-expect-error: an Input handler must return the stage's context
    registration(InferStage.Input, () => 42);
  });
});
