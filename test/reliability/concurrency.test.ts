import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry, type Disposer, type Next } from '../../src/index';
import { collect, gate } from './fixtures';

/** Events carry the invoke they belong to and the tags of the layers they passed. */
interface Tagged {
  readonly invoke: number;
  readonly tags: readonly string[];
  readonly final: boolean;
}

const stage = createStage<number, Tagged, Tagged>('concurrent', { isResult: (event) => event.final });

/** A Wrap handler that appends its tag to every event passing through it. */
function tagging(tag: string) {
  return async function* tagged(_context: number, next: Next<number, Tagged>) {
    for await (const event of next()) yield { ...event, tags: [...event.tags, tag] };
  };
}

/** Yields to the event loop a few times, so that invokes interleave. */
async function shuffle(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function* terminal(invoke: number): AsyncGenerator<Tagged, void, undefined> {
  await shuffle(invoke % 3);
  yield { invoke, tags: [], final: false };
  await shuffle((invoke + 1) % 2);
  yield { invoke, tags: [], final: true };
}

describe('MiddlewareRegistry.invoke', () => {
  describe('10,000 concurrent invokes while handlers are added and removed', () => {
    it('runs each invoke with exactly the handlers registered when it was called, and never mixes results', async () => {
      const registry = new MiddlewareRegistry();
      const live: { tag: string; dispose: Disposer }[] = [];
      const started: { events: AsyncGenerator<Tagged, void, undefined>; expected: string[] }[] = [];
      let added = 0;
      for (let invoke = 0; invoke < 10_000; invoke++) {
        if (invoke % 97 === 0) {
          const tag = `t${added++}`;
          live.push({ tag, dispose: registry.add(stage.Wrap, tagging(tag), { name: tag }) });
        } else if (invoke % 89 === 0 && live.length > 0) {
          (live.splice(invoke % live.length, 1)[0] as { dispose: Disposer }).dispose();
        }
        // Tags are appended innermost first: registration order reversed.
        started.push({ events: registry.invoke(stage, invoke, terminal), expected: live.map((entry) => entry.tag).reverse() });
      }
      // Handlers keep changing after the invokes were created but before they start.
      for (const entry of live.splice(0)) entry.dispose();
      registry.add(stage.Wrap, tagging('late'));

      const outcomes = await Promise.all(started.map(({ events }) => collect(events)));
      const wrong = outcomes.flatMap((outcome, invoke) => {
        const expected = (started[invoke] as { expected: string[] }).expected;
        const want = [
          { invoke, tags: expected, final: false },
          { invoke, tags: expected, final: true },
        ];
        return JSON.stringify(outcome) === JSON.stringify({ events: want, error: undefined }) ? [] : [{ invoke, outcome, want }];
      });
      expect(wrong).toEqual([]);
      // The registry changed often enough to make this meaningful.
      expect(new Set(started.map(({ expected }) => expected.join(','))).size).toBeGreaterThan(50);
    }, 60_000);
  });

  describe('concurrent state writebacks', () => {
    it('lands each write whole; the last invoke to finish wins and concurrent increments are not merged', async () => {
      interface Counter {
        readonly count: number;
        readonly writer: number;
        readonly mirror: number;
      }
      let store: Counter = { count: 0, writer: -1, mirror: -1 };
      const writes: Counter[] = [];
      const binding = {
        get: () => store,
        set: (next: Counter) => {
          store = next;
          writes.push(next);
        },
      };
      const release = gate();
      const registry = new MiddlewareRegistry();
      const counter = createStage<number, number>('counter');
      const invokes = Array.from({ length: 100 }, (_unused, invoke) =>
        collect(
          registry.invoke(
            counter,
            invoke,
            async function* increment(context, run) {
              const draft = run.state as { count: number; writer: number; mirror: number };
              draft.count += 1;
              draft.writer = context;
              await release.promise;
              await shuffle(context % 4);
              draft.mirror = context;
              yield context;
            },
            { state: binding },
          ),
        ),
      );
      // Every invoke has read the same snapshot before any of them finishes.
      await shuffle(2);
      release.open();
      const outcomes = await Promise.all(invokes);
      expect(outcomes.every((outcome) => outcome.error === undefined)).toBe(true);
      expect(writes).toHaveLength(100);
      // Whole writes: each written value comes from one invoke only.
      expect(writes.filter((write) => write.writer !== write.mirror || write.count !== 1)).toEqual([]);
      // Last writer wins: the store is the last write, not a merge.
      expect(store).toBe(writes[99]);
      expect(store.count).toBe(1);
      // Invokes with context % 4 === 3 wait longest; among those, 99 was released last.
      expect(store.writer).toBe(99);
    });
  });

  describe('a Wrap handler running next() twice concurrently (hedging)', () => {
    it('gets two independent inner chains: own terminal call, own inner activation, own state draft', async () => {
      const hedged = createStage<string, string>('hedged');
      const registry = new MiddlewareRegistry();
      const innerActivations: string[] = [];
      registry.add(hedged.Wrap, async function* hedge(context, next) {
        const [first, second] = await Promise.all([collect(next(`${context}-A`)), collect(next(`${context}-B`))]);
        yield [...first.events, ...second.events].join(' ');
      });
      registry.add(hedged.Wrap, async function* counting(context, next) {
        let seen = 0;
        innerActivations.push(context);
        for await (const event of next()) yield `${event}#${++seen}`;
      });
      const writes: { calls: string[] }[] = [];
      const outcome = await collect(
        registry.invoke(
          hedged,
          'q',
          async function* echo(context, run) {
            (run.state as { calls: string[] }).calls.push(context);
            await shuffle(context.endsWith('A') ? 3 : 1);
            yield `${context}:1`;
            await shuffle(1);
            yield `${context}:2`;
          },
          { state: { get: () => ({ calls: [] as string[] }), set: (next: { calls: string[] }) => writes.push(next) } },
        ),
      );
      expect({ outcome, innerActivations, writes }).toEqual({
        outcome: { events: ['q-A:1#1 q-A:2#2 q-B:1#1 q-B:2#2'], error: undefined },
        innerActivations: ['q-A', 'q-B'],
        // B finishes first (shorter delay), A last: the last terminal call to complete wins.
        writes: [{ calls: ['q-A'] }],
      });
    });
  });
});
