import { describe, expectTypeOf, it } from 'vitest';
import {
  MiddlewareRegistry,
  MiddlewareResult,
  registration,
  type ChainEntry,
  type Disposer,
  type InputHandler,
  type Next,
  type WrapHandler,
  type HandlerCall,
} from '../../src/core/index';
import { ModelStage, ToolStage, type Context, type Event, type Final } from './type-test-stages';

declare const registry: MiddlewareRegistry;

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
      expectTypeOf(run).toEqualTypeOf<HandlerCall>();
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
      expectTypeOf(run).toEqualTypeOf<HandlerCall>();
      expectTypeOf(run.signal).toEqualTypeOf<AbortSignal>();
      return context;
    });
    registry.add(ModelStage.Output, (result, run) => {
      expectTypeOf(run).toEqualTypeOf<HandlerCall>();
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
