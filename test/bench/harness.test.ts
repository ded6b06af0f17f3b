/**
 * The harness's interleaving: which operation each timed batch of a round
 * times, and that every side is compared with the baseline's batches of the
 * same rounds. Never a timing.
 */
import { describe, expect, it } from 'vitest';
import { compareAll, roundOrder } from '../../bench/harness';

describe('roundOrder', () => {
  it('gives two operations A B B A B A A B, swapped every other round', () => {
    expect(roundOrder(2, 0)).toEqual([0, 1, 1, 0, 1, 0, 0, 1]);
    expect(roundOrder(2, 1)).toEqual([1, 0, 0, 1, 0, 1, 1, 0]);
    expect(roundOrder(2, 2)).toEqual([0, 1, 1, 0, 1, 0, 0, 1]);
  });

  it('passes over more operations forward, backward, backward, forward, from a start that moves each round', () => {
    expect(roundOrder(4, 0)).toEqual([0, 1, 2, 3, 3, 2, 1, 0, 3, 2, 1, 0, 0, 1, 2, 3]);
    expect(roundOrder(4, 1)).toEqual([1, 2, 3, 0, 0, 3, 2, 1, 0, 3, 2, 1, 1, 2, 3, 0]);
    expect(roundOrder(4, 6)).toEqual([2, 3, 0, 1, 1, 0, 3, 2, 1, 0, 3, 2, 2, 3, 0, 1]);
  });

  it('times every operation four times a round', () => {
    for (const operations of [1, 2, 3, 5]) {
      const order = roundOrder(operations, 3);
      for (let operation = 0; operation < operations; operation++) {
        expect(order.filter((index) => index === operation)).toHaveLength(4);
      }
    }
  });
});

describe('compareAll', () => {
  it('warms every operation before any is timed, and answers a comparison per side, in order', async () => {
    const calls: string[] = [];
    const counting = (name: string) => (): void => {
      calls.push(name);
    };
    const comparisons = await compareAll([counting('a'), counting('b')], counting('base'), { rounds: 3, batchMs: 0.01, warmupMs: 0.01 });
    expect(comparisons).toHaveLength(2);
    // Runs of one operation in a row, as one: warm-up of each in order, then calibration of each, then the rounds
    // (the first, round 0: forward, backward, backward, forward).
    const stretches = calls.filter((name, index) => name !== calls[index - 1]);
    expect(stretches.slice(0, 6)).toEqual(['a', 'b', 'base', 'a', 'b', 'base']);
    expect(stretches.slice(6, 13)).toEqual(['a', 'b', 'base', 'b', 'a', 'base', 'b']);
    for (const comparison of comparisons) {
      expect(comparison.rounds).toBe(3);
      expect(comparison.ratio).toBeGreaterThan(0);
      expect(comparison.quartiles[0]).toBeLessThanOrEqual(comparison.quartiles[1]);
    }
    // Both sides are compared with the same baseline batches.
    expect(comparisons[0]?.baselineNs).toBe(comparisons[1]?.baselineNs);
    expect(comparisons[0]?.iterations[1]).toBe(comparisons[1]?.iterations[1]);
  });

  it('runs the untimed work before every timed batch', async () => {
    let before = 0;
    await compareAll([() => undefined, () => undefined], () => undefined, {
      rounds: 2,
      batchMs: 0.01,
      warmupMs: 0.01,
      beforeBatch: () => {
        before++;
      },
    });
    // Two rounds of four batches for each of three operations.
    expect(before).toBe(2 * 4 * 3);
  });
});
