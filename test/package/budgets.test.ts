/**
 * What the installed package costs a user before it runs, against the
 * budgets written beside this file (`budgets.json`): the gzipped size of each
 * bundle scenario and each entry point (esbuild, minified; see
 * `bench/startup-figures.ts`), and the cold `import()` of each entry point as
 * a ratio against a fixed module imported cold in the same run. A change that
 * grows one past its budget fails here with the number; a deliberate growth
 * updates `budgets.json` in the same change. Sizes are exact; a cold import
 * may take up to `headroom` times its budget, so a loaded machine cannot fail
 * it, while a change that loads much more at start (a dependency, work at
 * the top level of a module) still does. `npm run bench` prints the figures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_SCENARIOS, bundleSizes, coldImports, IMPORTABLE_ENTRY_POINTS, type BundleSize } from '../../bench/startup-figures';
import { consumer } from './consumer';

interface Budgets {
  /** The gzipped bytes each bundle scenario may take. */
  readonly bundles: Record<string, number>;
  /** The cold import of each entry point, as a ratio against the fixed module's. */
  readonly coldImports: { readonly headroom: number; readonly ratios: Record<string, number> };
}

const budgets = JSON.parse(readFileSync(join(import.meta.dirname, 'budgets.json'), 'utf8')) as Budgets;

/** The rounds of cold imports per entry point: each side's fastest counts. */
const ROUNDS = 3;

describe('bundles of the installed package', () => {
  let sizes: Record<string, BundleSize>;
  beforeAll(async () => {
    sizes = await bundleSizes(consumer);
  }, 120_000);

  it('have a budget for every scenario and entry point', () => {
    expect(Object.keys(budgets.bundles)).toEqual(BUNDLE_SCENARIOS.map((scenario) => scenario.name));
  });

  it('stay within their budgets, in gzipped bytes', () => {
    const over = Object.entries(budgets.bundles)
      .filter(([name, budget]) => (sizes[name]?.gzipped ?? Infinity) > budget)
      .map(([name, budget]) => `${name}: ${String(sizes[name]?.gzipped)} bytes gzipped, over its budget of ${String(budget)}`);
    expect(over).toEqual([]);
  });

  it('carry zod only where todoList, subagent, an MCP toolset or the conformance runner is', () => {
    expect(Object.fromEntries(Object.entries(sizes).map(([name, size]) => [name, size.zod]))).toEqual({
      registry: false,
      'agent with one middleware': false,
      'agent on the AI SDK with retry': false,
      'agent entry without todoList and subagent': false,
      'staged-middleware': false,
      'staged-middleware/agent': true,
      'staged-middleware/ai-sdk': false,
      'staged-middleware/middleware': false,
      'staged-middleware/testing': false,
      'staged-middleware/conformance': true,
      'staged-middleware/durable': false,
      'staged-middleware/durable/restate': false,
      'staged-middleware/durable/dbos': false,
      'staged-middleware/mcp': true,
    });
  });
});

describe('cold imports of the installed package', () => {
  it('have a budget for every entry point a process can load without the optional peers', () => {
    expect(Object.keys(budgets.coldImports.ratios)).toEqual(IMPORTABLE_ENTRY_POINTS);
  });

  it('stay within their budgets, as ratios against a fixed module imported cold', { timeout: 120_000 }, () => {
    const { headroom, ratios } = budgets.coldImports;
    const measured = coldImports(consumer, IMPORTABLE_ENTRY_POINTS, ROUNDS);
    const over = Object.entries(ratios)
      .filter(([entry, budget]) => (measured[entry]?.ratio ?? Infinity) > budget * headroom)
      .map(([entry, budget]) => {
        const { ratio = NaN, entryMs = NaN, baselineMs = NaN } = measured[entry] ?? {};
        return `${entry}: ${ratio.toFixed(2)} (${entryMs.toFixed(1)} ms against ${baselineMs.toFixed(1)} ms), over its budget of ${String(budget)} × ${String(headroom)}`;
      });
    expect(over).toEqual([]);
  });
});
