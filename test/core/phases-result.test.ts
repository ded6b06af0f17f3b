import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry } from '../../src/core/index';
import { fields } from '../assertions';
import { consume, delta, emitting, final, Guarded, holding, Plain, type Context } from './phases-fixtures';

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
});
