import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStage, MiddlewareRegistry, type Schema, type Terminal } from '../../src/index';
import { brand } from '../../src/util/brand';
import { fields } from '../assertions';

interface Context {
  readonly prompt: string;
}
interface Delta {
  readonly type: 'delta';
  readonly text: string;
}
interface Final {
  readonly type: 'result';
  readonly text: string;
}
type Event = Delta | Final;

const Guarded = createStage<Context, Final, Event>('guarded', { isResult: (event): event is Final => event.type === 'result' });
const Plain = createStage<Context, string>('plain');

const delta = (text: string): Delta => ({ type: 'delta', text });
const final = (text: string): Final => ({ type: 'result', text });

function emitting<T>(events: readonly T[], trace?: string[]): Terminal<Context, T> {
  return async function* terminal() {
    for (const event of events) {
      trace?.push(`yield ${JSON.stringify(event)}`);
      yield event;
    }
    trace?.push('end');
  };
}

async function consume<T>(events: AsyncIterable<T>, trace?: string[]): Promise<{ events: T[]; error?: unknown }> {
  const seen: T[] = [];
  try {
    for await (const event of events) {
      trace?.push(`got ${JSON.stringify(event)}`);
      seen.push(event);
    }
    return { events: seen };
  } catch (error) {
    return { events: seen, error };
  }
}

/** A registry in hold mode whose Output handler changes nothing. */
function holding(): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();
  registry.add(Guarded.Output, (result) => result);
  registry.add(Plain.Output, (result) => result);
  return registry;
}

describe('MiddlewareRegistry.invoke', () => {
  describe('result in pass mode (no Output handler, result schema or state)', () => {
    it('delivers each event as it arrives', async () => {
      const trace: string[] = [];
      const outcome = await consume(new MiddlewareRegistry().invoke(Plain, { prompt: 'x' }, emitting(['a', 'b'], trace)), trace);
      expect(outcome).toEqual({ events: ['a', 'b'] });
      expect(trace).toEqual(['yield "a"', 'got "a"', 'yield "b"', 'got "b"', 'end']);
    });

    it('checks the last event against the guard at the end', async () => {
      const trace: string[] = [];
      const outcome = await consume(
        new MiddlewareRegistry().invoke(Guarded, { prompt: 'x' }, emitting([final('r'), delta('d')], trace)),
        trace,
      );
      expect(outcome.events).toEqual([final('r'), delta('d')]);
      expect(fields(outcome.error)).toEqual({ code: 'ERR_NO_RESULT', stage: 'guarded', phase: undefined, handler: undefined });
      expect((outcome.error as Error).message).toBe(
        `[ERR_NO_RESULT] The chain of stage "guarded" did not yield a result event: its last event (a plain object) fails the stage's isResult guard (outermost layer: the terminal). Every Wrap handler must forward the events of next() (\`yield* next()\`) or yield a result of its own, and the terminal must end with a result event.`,
      );
    });
  });

  describe('a Wrap handler that swallows the result', () => {
    it('names the outermost Wrap handler in the ERR_NO_RESULT message', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Guarded.Wrap, async function* swallow(_context, next) {
        for await (const event of next()) if (event.type !== 'result') yield event;
      });
      const outcome = await consume(registry.invoke(Guarded, { prompt: 'x' }, emitting([delta('d'), final('r')], [])), []);
      expect(outcome.events).toEqual([delta('d')]);
      expect((outcome.error as Error).message).toContain('fails the stage\'s isResult guard (outermost layer: Wrap handler "swallow").');
    });
  });

  describe('result in hold mode', () => {
    it('holds one event back without a guard', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Plain.Output, (result) => {
        trace.push(`output ${result.value}`);
        return result.replace(result.value.toUpperCase());
      });
      const outcome = await consume(registry.invoke(Plain, { prompt: 'x' }, emitting(['a', 'b'], trace)), trace);
      expect(outcome).toEqual({ events: ['a', 'B'] });
      expect(trace).toEqual(['yield "a"', 'yield "b"', 'got "a"', 'end', 'output b', 'got "B"']);
    });

    it('passes events failing the guard straight through and holds only a candidate', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Guarded.Output, (result) => result.replace(final(`${result.value.text}!`)));
      const outcome = await consume(
        registry.invoke(Guarded, { prompt: 'x' }, emitting([delta('d1'), final('r1'), delta('d2'), final('r2')], trace)),
        trace,
      );
      expect(outcome).toEqual({ events: [delta('d1'), final('r1'), delta('d2'), final('r2!')] });
      expect(trace).toEqual([
        'yield {"type":"delta","text":"d1"}',
        'got {"type":"delta","text":"d1"}',
        'yield {"type":"result","text":"r1"}',
        'yield {"type":"delta","text":"d2"}',
        'got {"type":"result","text":"r1"}',
        'got {"type":"delta","text":"d2"}',
        'yield {"type":"result","text":"r2"}',
        'end',
        'got {"type":"result","text":"r2!"}',
      ]);
    });

    it('releases a held candidate unchanged when another candidate follows', async () => {
      const outcome = await consume(holding().invoke(Guarded, { prompt: 'x' }, emitting([final('r1'), final('r2')])));
      expect(outcome).toEqual({ events: [final('r1'), final('r2')] });
    });

    it('gives the Output phase the last event wrapped as a MiddlewareResult', async () => {
      const registry = new MiddlewareRegistry();
      const received: unknown[] = [];
      registry.add(Plain.Output, (result) => (received.push(result.constructor.name, result.value), result));
      await registry.run(Plain, { prompt: 'x' }, emitting(['a', 'b']));
      expect(received).toEqual(['MiddlewareResult', 'b']);
    });

    it('fails with ERR_NO_RESULT when a candidate is followed only by non-results', async () => {
      let outputs = 0;
      const registry = new MiddlewareRegistry();
      registry.add(Guarded.Output, (result) => (outputs++, result));
      const outcome = await consume(registry.invoke(Guarded, { prompt: 'x' }, emitting([final('r'), delta('d')])));
      expect(outcome.events).toEqual([final('r'), delta('d')]);
      expect(fields(outcome.error)).toEqual({ code: 'ERR_NO_RESULT', stage: 'guarded', phase: undefined, handler: undefined });
      expect(outputs).toBe(0);
    });
  });

  describe('the result the Output phase takes over', () => {
    it('regression: an Output handler mutating result.value in place gets a TypeError instead of changing a value another handler holds', async () => {
      const registry = new MiddlewareRegistry();
      const held: Final[] = [];
      registry.add(Guarded.Output, (result) => (held.push(result.value), result));
      registry.add(Guarded.Output, (result) => {
        (result.value as { text: string }).text = 'rewritten in place';
        return result;
      });
      const outcome = await consume(registry.invoke(Guarded, { prompt: 'x' }, emitting([delta('d'), final('r')])));
      expect({ events: outcome.events, error: (outcome.error as Error).constructor.name, held }).toEqual({
        events: [delta('d')],
        error: 'TypeError',
        held: [],
      });
    });

    it('delivers the final result frozen and the earlier events as they came', async () => {
      const first = delta('d');
      const last = final('r');
      await consume(holding().invoke(Guarded, { prompt: 'x' }, emitting([first, last])));
      expect([Object.isFrozen(first), Object.isFrozen(last)]).toEqual([false, true]);
    });

    it('freezes the value each Output handler receives, also one a result of another copy carries unfrozen', async () => {
      const registry = new MiddlewareRegistry();
      const seen: boolean[] = [];
      registry.add(Guarded.Output, (result) => (seen.push(Object.isFrozen(result.value)), result));
      // A result as a copy of the package that does not freeze its value would make it.
      registry.add(Guarded.Output, () => brand({ value: final('foreign') }, 'result') as never);
      registry.add(Guarded.Output, (result) => (seen.push(Object.isFrozen(result.value)), result));
      expect(await registry.run(Guarded, { prompt: 'x' }, emitting([final('r')]))).toEqual(final('foreign'));
      expect(seen).toEqual([true, true]);
    });

    it.each([
      ['a state binding', { state: { get: () => ({ n: 0 }), set: () => undefined } }, Guarded],
      [
        'a result schema',
        {},
        createStage<Context, Final, Event>('schema', { isResult: (event): event is Final => event.type === 'result', result: z.any() }),
      ],
      ['no Output handler at all', {}, Guarded],
    ])('freezes nothing without Output handlers, with %s', async (_label, options, stage) => {
      const last = final('r');
      await new MiddlewareRegistry().run(stage, { prompt: 'x' }, emitting([last]), options);
      expect(Object.isFrozen(last)).toBe(false);
    });
  });

  describe('result in both modes', () => {
    it.each([
      [[delta('a'), final('b')]],
      [[final('a')]],
      [[delta('a'), delta('b'), final('c'), delta('d'), final('e')]],
      [[final('a'), final('b'), delta('c'), final('d')]],
    ])('deliver the same sequence for %j', async (sequence) => {
      const passed = await consume(new MiddlewareRegistry().invoke(Guarded, { prompt: 'x' }, emitting(sequence)));
      const held = await consume(holding().invoke(Guarded, { prompt: 'x' }, emitting(sequence)));
      expect(passed).toEqual({ events: sequence });
      expect(held).toEqual({ events: sequence });
    });

    it.each([
      ['pass', () => new MiddlewareRegistry()],
      ['hold', holding],
    ])('fail with ERR_NO_RESULT when nothing is yielded (%s mode)', async (_mode, make) => {
      const outcome = await consume(make().invoke(Plain, { prompt: 'x' }, emitting<string>([])));
      expect(outcome.events).toEqual([]);
      expect(fields(outcome.error)).toEqual({ code: 'ERR_NO_RESULT', stage: 'plain', phase: undefined, handler: undefined });
      expect((outcome.error as Error).message).toContain(
        'did not yield a result event: it yielded no event at all (outermost layer: the terminal).',
      );
    });

    it.each([
      ['pass', () => new MiddlewareRegistry()],
      ['hold', holding],
    ])('fail with ERR_INVALID_EVENT on an undefined event (%s mode)', async (_mode, make) => {
      const outcome = await consume(make().invoke(Plain, { prompt: 'x' }, emitting(['a', undefined as unknown as string, 'b'])));
      expect(fields(outcome.error)).toEqual({ code: 'ERR_INVALID_EVENT', stage: 'plain', phase: undefined, handler: undefined });
      expect((outcome.error as Error).message).toBe(
        '[ERR_INVALID_EVENT] A layer of stage "plain" yielded undefined, which is never a valid event. Look for a bare `yield` or a `yield` of a missing value in the Wrap handlers and the terminal.',
      );
    });

    it('accept null and other falsy values as events', async () => {
      const Loose = createStage<Context, unknown>('loose');
      const outcome = await consume(new MiddlewareRegistry().invoke(Loose, { prompt: 'x' }, emitting<unknown>([null, 0, '', false])));
      expect(outcome).toEqual({ events: [null, 0, '', false] });
    });
  });

  describe('context schema', () => {
    const Typed = createStage<{ prompt: string; temperature: number }, string>('typed', {
      context: z.object({ prompt: z.string().transform((text) => text.trim()), temperature: z.number().default(0.5) }),
    });

    it('gives the Wrap phase the parsed context, after the Input phase', async () => {
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(Typed.Input, (context) => (seen.push(context), { ...context, prompt: `${context.prompt}  ` }));
      registry.add(Typed.Wrap, async function* observe(context, next) {
        seen.push(context);
        yield* next();
      });
      await registry.run(Typed, { prompt: ' hi' } as never, async function* terminal(context) {
        seen.push(context);
        yield context.prompt;
      });
      expect(seen).toEqual([{ prompt: ' hi' }, { prompt: 'hi', temperature: 0.5 }, { prompt: 'hi', temperature: 0.5 }]);
    });

    it('fails with ERR_CONTEXT_INVALID carrying the ZodError as cause, before any layer runs', async () => {
      let entered = false;
      const outcome = await consume(
        new MiddlewareRegistry().invoke(Typed, { prompt: 5 } as never, async function* terminal() {
          entered = true;
          yield 'x';
        }),
      );
      expect(fields(outcome.error)).toEqual({ code: 'ERR_CONTEXT_INVALID', stage: 'typed', phase: 'input', handler: undefined });
      expect((outcome.error as Error).cause).toBeInstanceOf(z.ZodError);
      expect((outcome.error as Error).message).toContain("failed the stage's context schema after the Input phase.");
      expect((outcome.error as Error).message).toContain('are in the cause; fix the caller');
      expect(entered).toBe(false);
    });
  });

  describe('result schema', () => {
    const Checked = createStage<Context, string>('checked', {
      result: z
        .string()
        .min(2)
        .transform((text) => `<${text}>`),
    });

    it('delivers the parsed value after the Output phase, holding events back', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Checked.Output, (result) => result.replace(`${result.value}!`));
      const trace: string[] = [];
      const outcome = await consume(registry.invoke(Checked, { prompt: 'x' }, emitting(['ab', 'cd'], trace)), trace);
      expect(outcome).toEqual({ events: ['ab', '<cd!>'] });
      expect(trace).toEqual(['yield "ab"', 'yield "cd"', 'got "ab"', 'end', 'got "<cd!>"']);
    });

    it('fails with ERR_RESULT_INVALID carrying the ZodError as cause', async () => {
      const outcome = await consume(new MiddlewareRegistry().invoke(Checked, { prompt: 'x' }, emitting(['a'])));
      expect(outcome.events).toEqual([]);
      expect(fields(outcome.error)).toEqual({ code: 'ERR_RESULT_INVALID', stage: 'checked', phase: 'output', handler: undefined });
      expect((outcome.error as Error).cause).toBeInstanceOf(z.ZodError);
      expect((outcome.error as Error).message).toContain("failed the stage's result schema after the Output phase");
    });

    it('uses the asynchronous parse when the schema has one', async () => {
      const Async = createStage<Context, string>('async', {
        result: z.string().refine(async (text) => text !== 'forbidden', 'forbidden'),
      });
      await expect(new MiddlewareRegistry().run(Async, { prompt: 'x' }, emitting(['fine']))).resolves.toBe('fine');
      const outcome = await consume(new MiddlewareRegistry().invoke(Async, { prompt: 'x' }, emitting(['forbidden'])));
      expect(fields(outcome.error).code).toBe('ERR_RESULT_INVALID');
    });

    it('accepts a schema with safeParse only', async () => {
      const problems = ['too short'];
      const schema: Schema<string> = {
        safeParse: (value) =>
          typeof value === 'string' && value.length > 1
            ? { success: true, data: value.toUpperCase() }
            : { success: false, error: problems },
      };
      const Custom = createStage<Context, string>('custom', { result: schema });
      await expect(new MiddlewareRegistry().run(Custom, { prompt: 'x' }, emitting(['ok']))).resolves.toBe('OK');
      const outcome = await consume(new MiddlewareRegistry().invoke(Custom, { prompt: 'x' }, emitting(['k'])));
      expect((outcome.error as Error).cause).toBe(problems);
    });
  });

  describe('result through run', () => {
    it('resolves with the Output-transformed result', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Guarded.Output, (result) =>
        result.update((draft) => {
          draft.text = draft.text.toUpperCase();
        }),
      );
      await expect(registry.run(Guarded, { prompt: 'x' }, emitting([delta('d'), final('done')]))).resolves.toEqual(final('DONE'));
    });
  });

  describe('what Input and Output handlers receive besides their value', () => {
    it("gives each a fresh { stage, signal, handler } with the invoke's signal", async () => {
      const registry = new MiddlewareRegistry();
      const runs: { stage: unknown; signal: AbortSignal; handler: string }[] = [];
      registry.add(Guarded.Input, function addContext(context, run) {
        runs.push(run);
        return context;
      });
      registry.add(Guarded.Output, function checkAnswer(result, run) {
        runs.push(run);
        return result;
      });
      const controller = new AbortController();
      await registry.run(Guarded, { prompt: 'x' }, emitting([final('done')]), { signal: controller.signal });
      expect(runs).toEqual([
        { stage: Guarded, signal: controller.signal, handler: 'addContext' },
        { stage: Guarded, signal: controller.signal, handler: 'checkAnswer' },
      ]);
      expect(runs[0]).not.toBe(runs[1]);
    });

    it('gives a signal that never aborts to an invoke without one', async () => {
      const registry = new MiddlewareRegistry();
      let seen: AbortSignal | undefined;
      registry.add(Guarded.Input, (context, run) => {
        seen = run.signal;
        return context;
      });
      await registry.run(Guarded, { prompt: 'x' }, emitting([final('done')]));
      expect(seen?.aborted).toBe(false);
    });

    it('lets an Input handler waiting on I/O stop when the invoke is cancelled, and the consumer sees ERR_ABORTED', async () => {
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      registry.add(Guarded.Input, function fetchDocuments(context, run) {
        return new Promise<Context>((_resolve, reject) => {
          run.signal.addEventListener(
            'abort',
            () => {
              reject(run.signal.reason as Error);
            },
            { once: true },
          );
          controller.abort(new Error('user left'));
        });
      });
      const outcome = await consume(registry.invoke(Guarded, { prompt: 'x' }, emitting([final('done')]), { signal: controller.signal }));
      expect(fields(outcome.error)).toEqual({ code: 'ERR_ABORTED', stage: 'guarded', phase: undefined, handler: undefined });
    });
  });
});
