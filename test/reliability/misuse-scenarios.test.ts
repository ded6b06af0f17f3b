/**
 * Misuses that take more than one row of the table (`misuse.test.ts`) to
 * show: a `next()` kept past the settle, schemas that reject, an isResult
 * that throws. Each ends in a MiddlewareError naming the stage and handler,
 * and writes nothing.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createStage, MiddlewareError } from '../../src/core/index';
import { collect } from './fixtures';
import { capture, context, good } from './misuse-harness';

describe('MiddlewareRegistry', () => {
  describe('next() called after the invoke settled', () => {
    it('throws ERR_NEXT_AFTER_SETTLE naming the handler, and starts nothing', async () => {
      const setup = context();
      let kept: (() => AsyncGenerator<string, void, undefined>) | undefined;
      setup.registry.add(
        setup.stage.Wrap,
        async function* keeper(_context, next) {
          kept = next;
          yield* next();
        },
        { name: 'keeper' },
      );
      const terminal = vi.fn(good);
      const outcome = await collect(setup.invoke(terminal));
      expect(outcome).toEqual({ events: ['partial', 'done'], error: undefined });
      let error: unknown;
      try {
        (kept as () => unknown)();
      } catch (caught) {
        error = caught;
      }
      expect({
        code: (error as MiddlewareError).code,
        handler: (error as MiddlewareError).handler,
        terminalCalls: terminal.mock.calls.length,
      }).toEqual({
        code: 'ERR_NEXT_AFTER_SETTLE',
        handler: 'keeper',
        terminalCalls: 1,
      });
      expect(setup.writes).toEqual([{ turns: 0 }]);
    });
  });

  describe('schema failures', () => {
    const stage = createStage<{ topic: string }, string, string>('misuse', {
      context: z.object({ topic: z.string().min(5) }),
      result: z.string().min(5),
    });
    async function* short(): AsyncGenerator<string, void, undefined> {
      yield 'tiny';
    }

    it('keeps the zod issues of a context schema failure in cause', async () => {
      const setup = context(stage);
      const error = (await capture(() => setup.registry.invoke(stage, { topic: 'x' }, short, { state: setup.state }))) as MiddlewareError;
      expect({ code: error.code, paths: (error.cause as z.ZodError).issues.map((issue) => issue.path), writes: setup.writes }).toEqual({
        code: 'ERR_CONTEXT_INVALID',
        paths: [['topic']],
        writes: [],
      });
    });

    it('keeps the zod issues of a result schema failure in cause', async () => {
      const setup = context(stage);
      const error = (await capture(() =>
        setup.registry.invoke(stage, { topic: 'a long topic' }, short, { state: setup.state }),
      )) as MiddlewareError;
      expect({ code: error.code, issues: (error.cause as z.ZodError).issues.map((issue) => issue.code), writes: setup.writes }).toEqual({
        code: 'ERR_RESULT_INVALID',
        issues: ['too_small'],
        writes: [],
      });
    });
  });

  describe('isResult that throws', () => {
    it.each([
      ['while streaming (results are held for an Output handler)', true],
      ['on the last event (pass mode)', false],
    ])('passes the guard’s error through unchanged %s, writing nothing', async (_label, withOutput) => {
      const guardError = new Error('guard failed');
      const stage = createStage<{ topic: string }, string, string>('misuse', {
        isResult: (event) => {
          if (event === 'bad') throw guardError;
          return event.startsWith('r');
        },
      });
      const setup = context(stage);
      if (withOutput) setup.registry.add(stage.Output, (result) => result);
      const error = await capture(() =>
        setup.invoke(async function* terminal() {
          yield 'r1';
          yield 'bad';
        }),
      );
      expect(error).toBe(guardError);
      expect(setup.writes).toEqual([]);
    });
  });
});
