/**
 * Timing harness: measures operations against one baseline as ratios.
 *
 * Why ratios measured in the same run: absolute nanoseconds drift with the
 * machine's load, clock and JIT state; a ratio of two measurements taken
 * moments apart cancels most of that drift. Each round times every operation
 * four times, in the order A B B A B A A B for two (A and B swapping every
 * round), and the same passes forward and backward for more.
 *
 * Why many short batches, and the fastest batch of each side per round: on a
 * shared machine other processes take the CPU for milliseconds at a time, and
 * that only ever adds time. A batch of about a millisecond is usually either
 * untouched or visibly spoiled; the fastest of a side's four batches in a
 * round is its least disturbed one, and the median over rounds then ignores
 * the rounds where every batch was disturbed.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One operation to time: synchronous, or a promise that resolves when it is complete. */
export type Operation = () => unknown;

/** How long and how often to measure. */
export interface MeasureOptions {
  /** Rounds; each round times every operation four times (A B B A B A A B for two). */
  readonly rounds: number;
  /** Target duration of one timed batch, in milliseconds. */
  readonly batchMs: number;
  /** Untimed warm-up of each side before calibration, in milliseconds (lets the JIT settle). */
  readonly warmupMs: number;
  /** Untimed work done before every timed batch of any operation (the pressure of `gc_pressure`). */
  readonly beforeBatch?: () => void;
}

/** What one comparison measured. */
export interface Comparison {
  /** Median over rounds of ours / baseline, each side's fastest batch of the round. */
  readonly ratio: number;
  /** Median over rounds of the fastest batch of ours, in nanoseconds per operation. */
  readonly oursNs: number;
  /** The same for the baseline. */
  readonly baselineNs: number;
  /** First and third quartile of the per-round ratios, to show the spread. */
  readonly quartiles: readonly [number, number];
  /** Rounds measured. */
  readonly rounds: number;
  /** Operations per timed batch: ours, baseline. */
  readonly iterations: readonly [number, number];
  /** The fastest batch of ours in each round, in nanoseconds per operation: to compare two sides round by round. */
  readonly roundNs: readonly number[];
}

/** A full collection: before each figure, so that one figure's garbage is not billed to the next. */
export const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return typeof gc === 'function' ? gc : () => undefined;
})();

/** The value at quantile `q` (0 to 1) of a non-empty list, interpolated. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return (sorted[below] as number) + ((sorted[above] as number) - (sorted[below] as number)) * (position - below);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Nanoseconds per operation over `iterations` runs. Synchronous results are not awaited. */
async function timeBatch(operation: Operation, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let index = 0; index < iterations; index++) {
    const outcome = operation();
    if (outcome instanceof Promise) await outcome;
  }
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** Runs `operation` for about `ms` milliseconds; returns how many runs fit. */
async function runFor(operation: Operation, ms: number): Promise<number> {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  let count = 0;
  do {
    const outcome = operation();
    if (outcome instanceof Promise) await outcome;
    count++;
  } while (process.hrtime.bigint() < deadline);
  return count;
}

/** How many operations fill one batch of `batchMs` (the fastest of a few probes decides). */
async function calibrate(operation: Operation, batchMs: number): Promise<number> {
  const probe = Math.max(1, await runFor(operation, batchMs));
  let fastest = Infinity;
  for (let attempt = 0; attempt < 5; attempt++) fastest = Math.min(fastest, await timeBatch(operation, probe));
  return Math.max(1, Math.round((batchMs * 1e6) / fastest));
}

/**
 * The order of one round's timed batches: four passes over every operation,
 * forward, backward, backward, forward, starting at operation `round`
 * (modulo their number). With two operations that is A B B A B A A B, A and
 * B swapping every round.
 */
export function roundOrder(operations: number, round: number): readonly number[] {
  const rotated = Array.from({ length: operations }, (_, index) => (index + round) % operations);
  const backward = [...rotated].reverse();
  return [...rotated, ...backward, ...backward, ...rotated];
}

/**
 * Times each of `sides` against `baseline` in the same interleaved rounds:
 * every operation is warmed up before any is calibrated, and every round times
 * four batches of each in the order of {@link roundOrder}, so the sides' ratios
 * share one baseline's batches, one load and one state of the JIT. Timed one
 * pair after another instead, a side measured later meets code the earlier
 * pairs made polymorphic (a baseline shared with a floor, say), and its ratio
 * moves with the order.
 */
export async function compareAll(
  sides: readonly Operation[],
  baseline: Operation,
  options: MeasureOptions,
): Promise<readonly Comparison[]> {
  const operations = [...sides, baseline];
  const last = sides.length;
  collectGarbage();
  for (const operation of operations) await runFor(operation, options.warmupMs);
  const iterations: number[] = [];
  for (const operation of operations) iterations.push(await calibrate(operation, options.batchMs));
  const times = operations.map((): number[] => []);
  for (let round = 0; round < options.rounds; round++) {
    const best = operations.map(() => Infinity);
    for (const index of roundOrder(operations.length, round)) {
      options.beforeBatch?.();
      best[index] = Math.min(best[index] as number, await timeBatch(operations[index] as Operation, iterations[index] as number));
    }
    best.forEach((time, index) => (times[index] as number[]).push(time));
  }
  const baselineTimes = times[last] as number[];
  return sides.map((_, side) => {
    const sideTimes = times[side] as number[];
    const ratios = sideTimes.map((time, round) => time / (baselineTimes[round] as number));
    return {
      ratio: median(ratios),
      oursNs: median(sideTimes),
      baselineNs: median(baselineTimes),
      quartiles: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
      rounds: options.rounds,
      iterations: [iterations[side] as number, iterations[last] as number],
      roundNs: sideTimes,
    };
  });
}

/**
 * Median over rounds of one side's time over another's, timed in the same rounds by {@link compareAll}: how far
 * `side` is from `reference` without the baseline between them (a ratio of two medians moves with each).
 */
export function roundRatio(side: Comparison, reference: Comparison): number {
  return median(side.roundNs.map((time, round) => time / (reference.roundNs[round] as number)));
}
