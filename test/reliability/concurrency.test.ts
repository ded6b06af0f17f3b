import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry } from '../../src/core/index';
import { ChurningRegistry, seededRandom, type ChurnEvent, type ChurnTags } from './churn';
import { collect, gate } from './fixtures';

/** Yields to the event loop a few times, so that invokes interleave. */
async function shuffle(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('MiddlewareRegistry.invoke', () => {
  describe('10,000 concurrent invokes while handlers are added and removed mid-stream', () => {
    interface Running {
      readonly invoke: number;
      readonly events: AsyncGenerator<ChurnEvent, void, undefined>;
      readonly tags: ChurnTags;
      readonly seen: ChurnEvent[];
      done: boolean;
    }

    async function pull(running: Running): Promise<void> {
      const step = await running.events.next();
      if (step.done === true) running.done = true;
      else running.seen.push(step.value);
    }

    /** What an invoke started with these handlers delivers (the outermost handler restarts the inner chain after the first event). */
    function wanted(invoke: number, tags: ChurnTags): ChurnEvent[] {
      const { inputs, wraps } = tags;
      return [
        { invoke, call: 1, seq: 0, inputs, wraps, outputs: [], final: false },
        { invoke, call: 2, seq: 1, inputs, wraps, outputs: [], final: false },
        { invoke, call: 2, seq: 2, inputs, wraps, outputs: tags.outputs, final: true },
      ];
    }

    it('runs each invoke with exactly the Input, Wrap and Output handlers registered when it was called, and never mixes results', async () => {
      const random = seededRandom(20261122);
      const churning = new ChurningRegistry(random);
      const running: Running[] = [];
      for (let invoke = 0; invoke < 10_000; invoke++) {
        if (invoke % 100 === 0) churning.churn();
        running.push({ invoke, ...churning.start(invoke), seen: [], done: false });
      }
      const changesBeforeAnyPull = churning.changes;

      // First pulls in batches, the registry changing between batches: the Input
      // phase and the first inner chain of most invokes run after changes made
      // since their invoke() call.
      for (let from = 0; from < running.length; from += 250) {
        await Promise.all(running.slice(from, from + 250).map(pull));
        churning.churn();
      }
      // Every invoke is now open at once, suspended after its first event.
      const openAfterFirstPull = running.filter((entry) => !entry.done && entry.seen.length === 1).length;

      // The rest in random chunks, changing the registry after each chunk, so
      // invokes at every point of their stream (and the restarted inner chains)
      // meet registry changes.
      let open = running.filter((entry) => !entry.done);
      while (open.length > 0) {
        const chunk = new Set<Running>();
        const size = Math.min(open.length, 1 + Math.floor(random() * 400));
        while (chunk.size < size) chunk.add(open[Math.floor(random() * open.length)] as Running);
        await Promise.all([...chunk].map(pull));
        churning.churn();
        open = open.filter((entry) => !entry.done);
      }

      const wrong = running.flatMap((entry) =>
        isDeepStrictEqual(entry.seen, wanted(entry.invoke, entry.tags))
          ? []
          : [{ invoke: entry.invoke, seen: entry.seen, want: wanted(entry.invoke, entry.tags) }],
      );
      expect(wrong).toEqual([]);
      expect(openAfterFirstPull).toBe(10_000);
      // The registry changed often, and mostly while invokes were mid-stream.
      expect(churning.changes - changesBeforeAnyPull).toBeGreaterThan(200);
      // Enough different handler sets, in every phase, to make this meaningful.
      const distinct = (key: keyof ChurnTags): number => new Set(running.map((entry) => entry.tags[key].join(','))).size;
      expect(distinct('inputs')).toBeGreaterThan(10);
      expect(distinct('wraps')).toBeGreaterThan(10);
      expect(distinct('outputs')).toBeGreaterThan(10);
      expect(new Set(running.map((entry) => JSON.stringify(entry.tags))).size).toBeGreaterThan(50);
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
