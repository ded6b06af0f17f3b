/**
 * Timing harness: measures one operation against its baseline as a ratio.
 *
 * Why ratios measured in the same run: absolute nanoseconds drift with the
 * machine's load, clock and JIT state; a ratio of two measurements taken
 * moments apart cancels most of that drift. Each round times both sides four
 * times, in the order A B B A B A A B, with A and B swapping every round.
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
  /** Rounds; each round times both sides four times (A B B A B A A B). */
  readonly rounds: number;
  /** Target duration of one timed batch, in milliseconds. */
  readonly batchMs: number;
  /** Untimed warm-up of each side before calibration, in milliseconds (lets the JIT settle). */
  readonly warmupMs: number;
  /** Untimed work done before every timed batch of either side (the pressure of `gc_pressure`). */
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

/** Times `ours` against `baseline` in interleaved rounds. */
export async function compare(ours: Operation, baseline: Operation, options: MeasureOptions): Promise<Comparison> {
  collectGarbage();
  await runFor(ours, options.warmupMs);
  await runFor(baseline, options.warmupMs);
  const oursIterations = await calibrate(ours, options.batchMs);
  const baselineIterations = await calibrate(baseline, options.batchMs);
  const ratios: number[] = [];
  const oursTimes: number[] = [];
  const baselineTimes: number[] = [];
  // Within a round: A B B A B A A B, four batches a side; A and B swap every round.
  const pattern = [true, false, false, true, false, true, true, false];
  for (let round = 0; round < options.rounds; round++) {
    let oursBest = Infinity;
    let baselineBest = Infinity;
    for (const first of pattern) {
      const oursNext = round % 2 === 0 ? first : !first;
      options.beforeBatch?.();
      if (oursNext) oursBest = Math.min(oursBest, await timeBatch(ours, oursIterations));
      else baselineBest = Math.min(baselineBest, await timeBatch(baseline, baselineIterations));
    }
    oursTimes.push(oursBest);
    baselineTimes.push(baselineBest);
    ratios.push(oursBest / baselineBest);
  }
  return {
    ratio: median(ratios),
    oursNs: median(oursTimes),
    baselineNs: median(baselineTimes),
    quartiles: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
    rounds: options.rounds,
    iterations: [oursIterations, baselineIterations],
  };
}
