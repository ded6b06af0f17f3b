import { describe, expectTypeOf, it } from 'vitest';
import type { Draft } from 'immer';
import { MiddlewareRegistry, MiddlewareResult, type Registration, type Terminal } from '../../src/core/index';
import { ModelStage, type Context, type Event, type Final } from './type-test-stages';

declare const registry: MiddlewareRegistry;
declare const terminal: Terminal<Context, Event>;

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
