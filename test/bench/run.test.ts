/**
 * Smoke test of `npm run bench` on the built `dist/`: the shape of what it
 * prints and writes, never its timings.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIGURES } from '../../bench/figures';

const run = promisify(execFile);
const TSX = join(process.cwd(), 'node_modules', 'tsx', 'dist', 'cli.mjs');
const SCRIPT = join(process.cwd(), 'bench', 'run.ts');

interface Written {
  node: string;
  figures: Record<string, { ratio: unknown; baseline: unknown; detail: Record<string, unknown> }>;
}

let directory: string;
/** One quick run of every figure, shared by the tests that only read it. */
let full: { stdout: string; written: Written };

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'bench-shape-'));
  full = await bench();
}, 120_000);

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function bench(...args: string[]): Promise<{ stdout: string; written: Written }> {
  const out = join(directory, `${args.join('-').replace(/[^a-z0-9_-]/gi, '')}.json`);
  const { stdout } = await run(process.execPath, [TSX, SCRIPT, '--quick', '--out', out, ...args], { timeout: 120_000 });
  return { stdout, written: JSON.parse(await readFile(out, 'utf8')) as Written };
}

describe('bench/run.ts', () => {
  describe('--quick', () => {
    it('writes every figure with a positive ratio, its baseline and its goal', () => {
      const { written } = full;
      expect(written.node).toBe(process.version);
      expect(Object.keys(written.figures)).toEqual(FIGURES.map((figure) => figure.name));
      for (const figure of FIGURES) {
        const entry = written.figures[figure.name];
        expect({
          name: figure.name,
          ratioIsPositive: typeof entry?.ratio === 'number' && entry.ratio > 0,
          baseline: entry?.baseline,
          goal: entry?.detail.goal,
          verdictIsBoolean: typeof entry?.detail.pass === 'boolean',
          verdictMatchesGoal: entry?.detail.pass === (entry?.ratio as number) <= figure.goal,
        }).toEqual({
          name: figure.name,
          ratioIsPositive: true,
          baseline: figure.baseline,
          goal: figure.goal,
          verdictIsBoolean: true,
          verdictMatchesGoal: true,
        });
      }
    });

    it('writes both floors of a figure that has them, and ours over the checked one, all positive', () => {
      const withFloors = Object.entries(full.written.figures).filter(([, entry]) => 'floorRatio' in entry.detail);
      expect(withFloors.map(([name]) => name)).toContain('agent_turn');
      for (const [name, { detail }] of withFloors) {
        expect({ name, floor: detail.floorRatio, checked: detail.checkedFloorRatio, over: detail.overCheckedFloor }).toEqual({
          name,
          floor: expect.any(Number),
          checked: expect.any(Number),
          over: expect.any(Number),
        });
        expect(detail.overCheckedFloor as number).toBeGreaterThan(0);
      }
    });

    it('prints a table row and a verdict line per figure', () => {
      const lines = full.stdout.split('\n');
      const rows = lines.filter((line) => line.startsWith('| ') && !line.startsWith('| figure ')).map((line) => line.split('|')[1]?.trim());
      const verdicts = lines.filter((line) => /^(PASS|FAIL) /.test(line)).map((line) => line.split(':')[0]?.split(' ')[1]);
      const names = FIGURES.map((figure) => figure.name);
      expect({ rows, verdicts }).toEqual({ rows: names, verdicts: names });
    });
  });

  describe('figure filter', () => {
    it('measures only the named figures', async () => {
      const { written } = await bench('state_scaling', 'stream_k0');
      expect(Object.keys(written.figures)).toEqual(['stream_k0', 'state_scaling']);
    }, 120_000);

    it('measures every figure against Strands for the name strands, in report order', async () => {
      const { written } = await bench('strands');
      expect(Object.keys(written.figures)).toEqual([
        'strands_invoke_k0_1ev',
        'strands_churn_k5_1ev',
        'strands_invoke_fixed',
        'strands_stream_k5',
        'strands_input_output',
        'strands_model_context',
        'strands_model_state',
      ]);
    }, 120_000);

    it('measures each figure in a process of its own without --quick or --in-process, and says so', async () => {
      const out = join(directory, 'isolated.json');
      const { stderr } = await run(process.execPath, [TSX, SCRIPT, '--out', out, 'context_scaling', 'state_scaling'], { timeout: 120_000 });
      const written = JSON.parse(await readFile(out, 'utf8')) as Written;
      expect({
        figures: Object.keys(written.figures),
        ratios: Object.values(written.figures).map((figure) => typeof figure.ratio),
        said: stderr.split('\n').filter((line) => line.startsWith('measuring ')),
      }).toEqual({
        figures: ['state_scaling', 'context_scaling'],
        ratios: ['number', 'number'],
        said: ['measuring state_scaling in a process of its own...', 'measuring context_scaling in a process of its own...'],
      });
    }, 120_000);

    it('refuses to record a quick run', async () => {
      await expect(run(process.execPath, [TSX, SCRIPT, '--quick', '--record', 'stream_k0'], { timeout: 60_000 })).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('A --quick run measures nothing worth keeping, so it cannot be recorded'),
      });
    }, 60_000);

    it('refuses a BENCH_DIST build that no package.json declares as ES modules', async () => {
      const copy = join(directory, 'copied-dist');
      await mkdir(copy);
      await expect(
        run(process.execPath, [TSX, SCRIPT, '--quick', 'stream_k0'], { timeout: 60_000, env: { ...process.env, BENCH_DIST: copy } }),
      ).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(`BENCH_DIST=${copy} has no package.json with "type": "module" beside or above it`),
      });
    }, 60_000);

    it('rejects an unknown figure name and lists the known ones, startup (the bundle sizes and cold imports) last', async () => {
      await expect(run(process.execPath, [TSX, SCRIPT, '--quick', 'no_such_figure'], { timeout: 60_000 })).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          `Unknown figure no_such_figure. Known figures: ${FIGURES.map((figure) => figure.name).join(', ')}, startup.`,
        ),
      });
    }, 60_000);
  });
});
