/**
 * Timing harness: measures one operation against its baseline as a ratio.
 *
 * Why ratios measured in the same run: absolute nanoseconds drift with the
 * machine's load, clock and JIT state; a ratio of two measurements taken
 * moments apart, in alternating order, cancels most of that drift. The median
 * of the per-round ratios then drops the rounds that a GC pause or a
 * neighbouring process spoiled.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One asynchronous operation to time; resolves when the operation is complete. */
export type Operation = () => Promise<unknown>;

/** How long and how often to measure. */
export interface MeasureOptions {
  /** Rounds; each round times both sides once, alternating which goes first. */
  readonly rounds: number;
  /** Target duration of one timed batch, in milliseconds. */
  readonly batchMs: number;
  /** Untimed warm-up before calibration, in milliseconds (lets the JIT settle). */
  readonly warmupMs: number;
}

/** What one comparison measured. */
export interface Comparison {
  /** Median over rounds of ours / baseline. */
  readonly ratio: number;
  /** Median nanoseconds per operation of ours. */
  readonly oursNs: number;
  /** Median nanoseconds per operation of the baseline. */
  readonly baselineNs: number;
  /** Smallest and largest per-round ratio, to show the spread. */
  readonly spread: readonly [number, number];
  /** Rounds measured. */
  readonly rounds: number;
  /** Operations per timed batch: ours, baseline. */
  readonly iterations: readonly [number, number];
}

/** A forced collection between batches keeps one side's garbage from being billed to the other. */
const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return typeof gc === 'function' ? gc : () => undefined;
})();

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function timeBatch(operation: Operation, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let index = 0; index < iterations; index++) await operation();
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** Runs `operation` for about `ms` milliseconds; returns how many runs fit. */
async function runFor(operation: Operation, ms: number): Promise<number> {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  let count = 0;
  do {
    await operation();
    count++;
  } while (process.hrtime.bigint() < deadline);
  return count;
}

/** How many operations fill one batch of `batchMs`. */
async function calibrate(operation: Operation, batchMs: number): Promise<number> {
  const probe = Math.max(1, await runFor(operation, Math.min(batchMs, 20)));
  const perOperation = await timeBatch(operation, probe);
  return Math.max(1, Math.round((batchMs * 1e6) / perOperation));
}

/** Times `ours` against `baseline` in interleaved rounds. */
export async function compare(ours: Operation, baseline: Operation, options: MeasureOptions): Promise<Comparison> {
  await runFor(ours, options.warmupMs);
  await runFor(baseline, options.warmupMs);
  const oursIterations = await calibrate(ours, options.batchMs);
  const baselineIterations = await calibrate(baseline, options.batchMs);
  const ratios: number[] = [];
  const oursTimes: number[] = [];
  const baselineTimes: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    let oursTime: number;
    let baselineTime: number;
    // Alternate the order so neither side always runs on a warmer (or colder) machine.
    if (round % 2 === 0) {
      collectGarbage();
      oursTime = await timeBatch(ours, oursIterations);
      collectGarbage();
      baselineTime = await timeBatch(baseline, baselineIterations);
    } else {
      collectGarbage();
      baselineTime = await timeBatch(baseline, baselineIterations);
      collectGarbage();
      oursTime = await timeBatch(ours, oursIterations);
    }
    oursTimes.push(oursTime);
    baselineTimes.push(baselineTime);
    ratios.push(oursTime / baselineTime);
  }
  return {
    ratio: median(ratios),
    oursNs: median(oursTimes),
    baselineNs: median(baselineTimes),
    spread: [Math.min(...ratios), Math.max(...ratios)],
    rounds: options.rounds,
    iterations: [oursIterations, baselineIterations],
  };
}
