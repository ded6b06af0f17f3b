import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStage, MiddlewareRegistry, MiddlewareResult, type MiddlewareStage } from '../../src/core/index';
import { validate } from '../../src/middleware/index';

/** Every value the library must hand on as it is (MW-039), made fresh, with what the library touched of it. */
function opaqueValues(touched: string[]): Record<string, unknown> {
  return {
    promise: Promise.resolve('replaced'),
    thenable: {
      then(resolve: (value: unknown) => void): void {
        touched.push('thenable.then');
        resolve('replaced');
      },
    },
    throwing: new Proxy(
      {},
      new Proxy(
        {},
        {
          get: (_handler, trap) => () => {
            touched.push(`throwing.${String(trap)}`);
            throw new Error(`trap ${String(trap)}`);
          },
        },
      ),
    ),
    functionAnswering: new Proxy(
      {},
      {
        get: (_target, key) => {
          if (key === 'then') touched.push('functionAnswering.then');
          return () => undefined;
        },
      },
    ),
  };
}

/** A terminal that is a plain async iterator (a generator's `yield` would await a thenable). */
function plainIterator(events: readonly unknown[]): () => AsyncIterableIterator<unknown> {
  return () => {
    let index = 0;
    const iterator: AsyncIterableIterator<unknown> = {
      [Symbol.asyncIterator]: () => iterator,
      next: () => Promise.resolve(index < events.length ? { value: events[index++], done: false } : { value: undefined, done: true }),
    };
    return iterator;
  };
}

/** Drains an invoke by `next()`, giving up (with what came) when it does not end in time. */
async function drain(events: AsyncIterator<unknown>): Promise<{ readonly events: unknown[]; readonly ended: boolean }> {
  const delivered: unknown[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, 1000);
  });
  const ended = await Promise.race([
    (async () => {
      for (let pulled = await events.next(); pulled.done !== true; pulled = await events.next()) delivered.push(pulled.value);
      return true;
    })(),
    stalled,
  ]);
  clearTimeout(timer);
  return { events: delivered, ended };
}

const Opaque = createStage<unknown, unknown, unknown>('opaque');

describe('MiddlewareRegistry.invoke', () => {
  describe('an opaque value as the result of a hold-mode invoke', () => {
    const registrations: readonly [string, (registry: MiddlewareRegistry) => MiddlewareStage<unknown, unknown, unknown>][] = [
      ['a synchronous Output handler', (registry) => (registry.add(Opaque.Output, (result) => result), Opaque)],
      ['an asynchronous Output handler', (registry) => (registry.add(Opaque.Output, (result) => Promise.resolve(result)), Opaque)],
      ['a result schema', () => createStage<unknown, unknown, unknown>('schema', { result: z.any() })],
      [
        'an asynchronous Output handler and a result schema',
        (registry) => {
          const stage = createStage<unknown, unknown, unknown>('both', { result: z.any() });
          registry.add(stage.Output, async (result) => result);
          return stage;
        },
      ],
    ];

    it.each(registrations)('delivers each kind as that very value, with %s', async (_name, register) => {
      const touched: string[] = [];
      for (const [kind, value] of Object.entries(opaqueValues(touched))) {
        const registry = new MiddlewareRegistry();
        const stage = register(registry);
        const outcome = await drain(registry.invoke(stage, {}, plainIterator(['before', value])));
        expect({ kind, ended: outcome.ended, same: outcome.events[1] === value, count: outcome.events.length }).toEqual({
          kind,
          ended: true,
          same: true,
          count: 2,
        });
      }
      expect(touched.filter((entry) => entry.endsWith('.then'))).toEqual([]);
    });
  });

  describe('opaque events before the result', () => {
    it('delivers them unread in hold mode, each released by the next one', async () => {
      const touched: string[] = [];
      const values = Object.values(opaqueValues(touched));
      const registry = new MiddlewareRegistry();
      registry.add(Opaque.Output, (result) => result);
      registry.add(Opaque.Wrap, async function* forward(_context, next) {
        yield* next();
      });
      const outcome = await drain(registry.invoke(Opaque, {}, plainIterator([...values, 'result'])));
      expect(outcome.events.map((event, index) => event === [...values, 'result'][index])).toEqual([true, true, true, true, true]);
      expect(touched).toEqual([]);
    });
  });

  describe('a thenable context', () => {
    it('is awaited when an Input handler returns it, as any thenable a handler returns (MW-010)', async () => {
      const touched: string[] = [];
      const { thenable } = opaqueValues(touched);
      const registry = new MiddlewareRegistry();
      registry.add(Opaque.Input, () => thenable);
      let received: unknown;
      await drain(
        registry.invoke(Opaque, {}, (context) => {
          received = context;
          return plainIterator(['done'])();
        }),
      );
      expect([received, touched]).toEqual(['replaced', ['thenable.then']]);
    });

    it('reaches the terminal as it is after a context schema', async () => {
      const touched: string[] = [];
      const { thenable } = opaqueValues(touched);
      const stage = createStage<unknown, unknown, unknown>('context schema', { context: z.any() });
      let received: unknown;
      await drain(
        new MiddlewareRegistry().invoke(stage, thenable, (context) => {
          received = context;
          return plainIterator(['done'])();
        }),
      );
      expect([received === thenable, touched]).toEqual([true, []]);
    });
  });

  describe('validate() over a thenable result', () => {
    it('replaces the result with the parsed value, as it is', async () => {
      const touched: string[] = [];
      const { thenable } = opaqueValues(touched);
      const registry = new MiddlewareRegistry();
      registry.use(validate(Opaque, { result: z.any() }));
      const outcome = await drain(registry.invoke(Opaque, {}, plainIterator([thenable])));
      expect([outcome.events[0] === thenable, touched]).toEqual([true, []]);
    });
  });

  describe('MiddlewareResult over a value every operation on which throws', () => {
    it('keeps it unfrozen, without raising the error', () => {
      const touched: string[] = [];
      const { throwing } = opaqueValues(touched);
      expect(new MiddlewareResult(throwing).value).toBe(throwing);
      expect(touched.length).toBeGreaterThan(0);
    });
  });
});
