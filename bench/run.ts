/**
 * `npm run bench`: builds the package, then measures every figure of the
 * built `dist/` as a ratio against its baseline and prints a table and a
 * pass/fail line per goal. It writes nothing unless asked.
 *
 * Flags:
 *   --record         writes the committed record, `bench/results.json`, and
 *                    rewrites the table of docs/performance.md from it
 *   --quick          a fast smoke run (few short rounds, small states) in this
 *                    one process; its numbers mean nothing, so it cannot be
 *                    recorded
 *   --in-process     measures the figures in this process, one after
 *                    another; without it (or --quick) each figure is
 *                    measured in a process of its own, started with this flag
 *   --out <path>     also writes the JSON to `path` (what the smoke test does)
 *   <name> ...       measures only the named figures; a recorded or written
 *                    file keeps the previous values of the others
 *   strands          (as a name) every figure against the Strands SDK's
 *                    registry (`strands-figures.ts`)
 *   startup          (as a name) the bundle sizes and cold imports of
 *                    `startup-figures.ts`, which a run of every figure prints
 *                    last; never recorded, since `test/package/budgets.json`
 *                    holds their budgets
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compareAll, roundRatio, type Comparison, type MeasureOptions } from './harness';
import { FIGURES, type Figure } from './figures';
import { CHECKED_FLOOR, checkedShell, minimalShell } from './floor';
import { readRecord, writeRecord, type BenchResults, type FigureResult } from './record';
import { startupReport } from './startup-figures';
import { strandsFigures } from './strands-figures';

/** The name that asks for the bundle sizes and cold imports. */
const STARTUP = 'startup';

/** The name that asks for every figure against Strands. */
const STRANDS = 'strands';

/** The rounds of cold imports per entry point in a bench run. */
const STARTUP_ROUNDS = 7;

interface Arguments {
  readonly quick: boolean;
  readonly inProcess: boolean;
  readonly record: boolean;
  readonly out: string | undefined;
  readonly names: readonly string[];
}

function parseArguments(argv: readonly string[]): Arguments {
  let quick = false;
  let inProcess = false;
  let record = false;
  let out: string | undefined;
  const names: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--quick') quick = true;
    else if (argument === '--in-process') inProcess = true;
    else if (argument === '--record') record = true;
    else if (argument === '--out') {
      out = argv[++index];
      if (out === undefined) throw new Error('--out needs a path, for example: npm run bench -- --out /some/where/results.json');
    } else if (argument.startsWith('--'))
      throw new Error(`Unknown flag ${argument}. Use --record, --quick, --in-process, --out <path> or figure names.`);
    else if (argument === STRANDS) names.push(...strandsFigures.map((figure) => figure.name));
    else names.push(argument);
  }
  if (quick && record) throw new Error('A --quick run measures nothing worth keeping, so it cannot be recorded: drop --quick or --record.');
  const known = new Set([...FIGURES.map((figure) => figure.name), STARTUP]);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`Unknown figure ${unknown.join(', ')}. Known figures: ${[...known].join(', ')}.`);
  return { quick, inProcess: inProcess || quick, record, out, names };
}

function measureOptions(figure: Figure, quick: boolean, beforeBatch: (() => void) | undefined): MeasureOptions {
  const pressure = beforeBatch === undefined ? {} : { beforeBatch };
  if (quick) return { rounds: 1, batchMs: 1, warmupMs: 1, ...pressure };
  return { rounds: figure.rounds ?? 151, batchMs: 1, warmupMs: 300, ...pressure };
}

/** Measures the chosen figures (all when `names` is empty). */
export async function runFigures(
  names: readonly string[],
  quick: boolean,
  log: (line: string) => void = () => undefined,
): Promise<Record<string, FigureResult>> {
  const results: Record<string, FigureResult> = {};
  for (const figure of FIGURES) {
    if (names.length > 0 && !names.includes(figure.name)) continue;
    log(`measuring ${figure.name}...`);
    const pair = await figure.setup(quick);
    const options = measureOptions(figure, quick, pair.beforeBatch);
    // The floors are timed in the same rounds as ours, against the same baseline batches.
    const sides = pair.floor === undefined ? [pair.ours] : [pair.ours, pair.floor(minimalShell, false), pair.floor(checkedShell, true)];
    const [comparison, floor, checked] = (await compareAll(sides, pair.baseline, options)) as [Comparison, Comparison?, Comparison?];
    const ratio = round(comparison.ratio);
    results[figure.name] = {
      ratio,
      baseline: figure.baseline,
      detail: {
        goal: figure.goal,
        pass: ratio <= figure.goal,
        oursNs: Math.round(comparison.oursNs),
        baselineNs: Math.round(comparison.baselineNs),
        quartiles: comparison.quartiles.map(round),
        rounds: comparison.rounds,
        ...pair.detail,
        ...(pair.perItem === undefined ? {} : { extraNsPerItem: Math.round((comparison.oursNs - comparison.baselineNs) / pair.perItem) }),
        ...(floor === undefined || checked === undefined
          ? {}
          : {
              floorRatio: round(floor.ratio),
              floorIs: pair.floorIs ?? 'a minimal shell (one .then per event, no checks) around the baseline',
              checkedFloorRatio: round(checked.ratio),
              checkedFloorIs: pair.checkedFloorIs ?? CHECKED_FLOOR,
              overCheckedFloor: round(roundRatio(comparison, checked)),
            }),
      },
    };
  }
  return results;
}

/**
 * Measures the chosen figures (all when `names` is empty) each in a Node.js process of its own, one after another:
 * in one process, the engine's view of code that several figures share (the registry's invoke, the agent's loop)
 * depends on which figures ran before, and a figure measured after others came out slower than alone (the one-event
 * invoke against Strands 1.8 to 2.0 after the agent's figures, 1.4 to 1.5 alone). Each child is this script with
 * `--in-process`, the figure's name and a file to write its result to.
 */
export async function runIsolated(
  names: readonly string[],
  log: (line: string) => void = () => undefined,
): Promise<Record<string, FigureResult>> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-figure-'));
  const results: Record<string, FigureResult> = {};
  try {
    for (const figure of FIGURES) {
      if (names.length > 0 && !names.includes(figure.name)) continue;
      log(`measuring ${figure.name} in a process of its own...`);
      const out = join(directory, `${figure.name}.json`);
      await run(process.execPath, [...process.execArgv, SCRIPT, '--in-process', '--out', out, figure.name], { maxBuffer: 1 << 24 });
      const written = JSON.parse(readFileSync(out, 'utf8')) as BenchResults;
      const result = written.figures[figure.name];
      if (result === undefined) throw new Error(`The process measuring ${figure.name} wrote no result for it.`);
      results[figure.name] = result;
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return results;
}

const run = promisify(execFile);

/** This script, which each figure's own process runs. */
const SCRIPT = fileURLToPath(import.meta.url);

function round(value: number): number {
  return value >= 0.01 ? Math.round(value * 1000) / 1000 : Number(value.toPrecision(3));
}

/** The readable table: one row per figure. */
export function formatTable(figures: Readonly<Record<string, FigureResult>>): string {
  const rows = Object.entries(figures).map(([name, figure]) => [
    name,
    String(figure.ratio),
    `<= ${String(figure.detail.goal)}`,
    figure.detail.pass === true ? 'pass' : 'FAIL',
    formatNs(figure.detail.oursNs),
    formatNs(figure.detail.baselineNs),
    typeof figure.detail.floorRatio === 'number' ? String(figure.detail.floorRatio) : '',
    typeof figure.detail.checkedFloorRatio === 'number' ? String(figure.detail.checkedFloorRatio) : '',
    typeof figure.detail.overCheckedFloor === 'number' ? String(figure.detail.overCheckedFloor) : '',
    figure.baseline,
  ]);
  const header = ['figure', 'ratio', 'goal', 'verdict', 'ours', 'baseline', 'floor', 'checked', 'over checked', 'baseline is'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] as number)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function formatNs(value: unknown): string {
  if (typeof value !== 'number') return '?';
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} ms`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(2)} µs`;
  return `${value} ns`;
}

/** The results of this run, with the previous values of the figures it did not measure when `previous` has them. */
function merged(figures: Record<string, FigureResult>, previous: BenchResults | undefined): BenchResults {
  const all = previous === undefined ? figures : { ...previous.figures, ...figures };
  // Report order, whatever order the previous file had.
  const ordered = Object.fromEntries(
    FIGURES.filter((figure) => figure.name in all).map((figure) => [figure.name, all[figure.name] as FigureResult]),
  );
  return { node: process.version, figures: ordered };
}

async function main(): Promise<void> {
  const { quick, inProcess, record, out, names } = parseArguments(process.argv.slice(2));
  const started = Date.now();
  const figureNames = names.filter((name) => name !== STARTUP);
  const startup = !quick && (names.length === 0 || names.includes(STARTUP));
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const figures =
    names.length > 0 && figureNames.length === 0
      ? {}
      : inProcess
        ? await runFigures(figureNames, quick, log)
        : await runIsolated(figureNames, log);
  if (Object.keys(figures).length > 0) process.stdout.write(`${formatTable(figures)}\n\n`);
  for (const [name, figure] of Object.entries(figures)) {
    process.stdout.write(
      `${figure.detail.pass === true ? 'PASS' : 'FAIL'} ${name}: ${figure.ratio} (goal <= ${String(figure.detail.goal)})\n`,
    );
  }
  if (startup) {
    process.stderr.write('measuring bundle sizes and cold imports...\n');
    const budgets = JSON.parse(readFileSync(new URL('../test/package/budgets.json', import.meta.url), 'utf8')) as Parameters<
      typeof startupReport
    >[1];
    process.stdout.write(`\n${await startupReport(fileURLToPath(new URL('..', import.meta.url)), budgets, STARTUP_ROUNDS)}\n`);
  }
  process.stdout.write(
    `\n${Object.keys(figures).length} figures in ${((Date.now() - started) / 1000).toFixed(1)} s on Node ${process.version}\n`,
  );
  if (out !== undefined) {
    // A filtered run refreshes its figures and keeps the others from the file.
    const previous = names.length > 0 && existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as BenchResults) : undefined;
    writeFileSync(out, `${JSON.stringify(merged(figures, previous), null, 2)}\n`);
  }
  if (record) {
    writeRecord(merged(figures, names.length > 0 ? readRecord() : undefined), FIGURES);
    process.stdout.write('Recorded in bench/results.json and the table of docs/performance.md.\n');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
