/**
 * What the package costs before it runs: the size of a user's bundle (each
 * entry point whole, and the scenarios users write) and the time of a cold
 * `import()` of each entry point. `npm run bench` prints the figures (on
 * `dist/`); the packed-package tier checks them against the budgets of
 * `test/package/budgets.json` (on the installed tarball).
 *
 * Bundles: esbuild, minified, for the browser (the Node.js modules and the
 * optional peers left out), as an ES module whose exports keep what the
 * scenario uses; the size that counts is the output gzipped at level 9.
 *
 * Cold imports: each in a fresh Node.js process, timed inside it (so the
 * process's own start is not counted), as a ratio against the cold import of
 * a fixed module (`BASELINE_MODULE`) in another fresh process of the same
 * run, alternating the two; each side's fastest of the rounds counts, since
 * a busy machine only ever adds time.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The entry points, as a user imports them. */
export const ENTRY_POINTS = [
  'staged-middleware',
  'staged-middleware/agent',
  'staged-middleware/ai-sdk',
  'staged-middleware/middleware',
  'staged-middleware/testing',
  'staged-middleware/conformance',
  'staged-middleware/durable',
  'staged-middleware/durable/restate',
  'staged-middleware/durable/dbos',
  'staged-middleware/mcp',
] as const;

/** The entry points a cold import can load with no optional peer installed (the DBOS adapter loads its SDK). */
export const IMPORTABLE_ENTRY_POINTS = ENTRY_POINTS.filter((entry) => entry !== 'staged-middleware/durable/dbos');

/** What the bundles leave to the runtime: its own modules and the optional peers, which the user installs or not. */
export const EXTERNAL = [
  'node:*',
  '@ai-sdk/provider',
  'ai',
  '@opentelemetry/api',
  '@dbos-inc/dbos-sdk',
  '@restatedev/restate-sdk',
  '@modelcontextprotocol/sdk',
  'pg',
];

/** One bundle a user makes: its name, what it holds, and its source given the run-time export names of an entry point. */
export interface BundleScenario {
  /** The key in the budgets and the bench's table. */
  readonly name: string;
  /** What the bundle holds, in words. */
  readonly holds: string;
  /** The bundle's entry module. */
  readonly source: (exportsOf: (entry: string) => readonly string[]) => string;
}

/** The scenarios users write, then every entry point whole. */
export const BUNDLE_SCENARIOS: readonly BundleScenario[] = [
  {
    name: 'registry',
    holds: '`MiddlewareRegistry` and `createStage`',
    source: () => `export { createStage, MiddlewareRegistry } from 'staged-middleware';\n`,
  },
  {
    name: 'agent with one middleware',
    holds: 'an `Agent` whose registry has one handler of its own (an InvokeModelStage Input handler)',
    source: () => `import { MiddlewareRegistry } from 'staged-middleware';
import { Agent, InvokeModelStage } from 'staged-middleware/agent';
export function createAgent(model) {
  const registry = new MiddlewareRegistry();
  registry.add(InvokeModelStage.Input, (context) => context);
  return new Agent({ model, registry });
}
`,
  },
  {
    name: 'agent on the AI SDK with retry',
    holds: 'an `Agent` on an AI SDK model (`fromAiSdk`) with `retry`',
    source: () => `import { MiddlewareRegistry } from 'staged-middleware';
import { Agent, InvokeModelStage } from 'staged-middleware/agent';
import { fromAiSdk } from 'staged-middleware/ai-sdk';
import { retry } from 'staged-middleware/middleware';
export function createAgent(languageModel) {
  const registry = new MiddlewareRegistry();
  registry.add(InvokeModelStage.Wrap, retry());
  return new Agent({ model: fromAiSdk(languageModel), registry });
}
`,
  },
  {
    name: 'agent entry without todoList and subagent',
    holds: 'every run-time export of `staged-middleware/agent` but `todoList` and `subagent` (the two that load zod)',
    source: (exportsOf) =>
      `export { ${exportsOf('staged-middleware/agent')
        .filter((name) => name !== 'todoList' && name !== 'subagent')
        .join(', ')} } from 'staged-middleware/agent';\n`,
  },
  ...ENTRY_POINTS.map((entry) => ({
    name: entry,
    holds: `every export of \`${entry}\``,
    source: () => `export * from '${entry}';\n`,
  })),
];

/** The size of one bundle. */
export interface BundleSize {
  /** Bytes of the minified bundle. */
  readonly minified: number;
  /** Bytes of the minified bundle gzipped at level 9. */
  readonly gzipped: number;
  /** Whether any of zod is in it. */
  readonly zod: boolean;
}

/** The run-time export names of `entry`, as a Node.js process in `project` loads it. */
export function exportsOf(project: string, entry: string): readonly string[] {
  const printed = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(entry)}))))`],
    { cwd: project, encoding: 'utf8' },
  );
  return JSON.parse(printed) as string[];
}

/** Bundles every scenario with `staged-middleware` resolved from `project`, and measures each bundle. */
export async function bundleSizes(project: string): Promise<Record<string, BundleSize>> {
  const known = new Map<string, readonly string[]>();
  const lookup = (entry: string): readonly string[] => {
    let names = known.get(entry);
    if (names === undefined) known.set(entry, (names = exportsOf(project, entry)));
    return names;
  };
  const sizes: Record<string, BundleSize> = {};
  for (const scenario of BUNDLE_SCENARIOS) {
    const result = await build({
      stdin: { contents: scenario.source(lookup), resolveDir: project, sourcefile: 'scenario.mjs', loader: 'js' },
      absWorkingDir: project,
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      external: EXTERNAL,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]?.contents ?? new Uint8Array();
    sizes[scenario.name] = {
      minified: code.length,
      gzipped: gzipSync(code, { level: 9 }).length,
      // The output's inputs, not the build's: a dynamic import() pulls its module into the build even where the
      // code around it is left out, and then none of it is in the output.
      zod: Object.values(result.metafile.outputs).some((output) =>
        Object.entries(output.inputs).some(
          ([input, { bytesInOutput }]) => bytesInOutput > 0 && /(^|[\\/])node_modules[\\/]zod[\\/]/.test(input),
        ),
      ),
    };
  }
  return sizes;
}

/**
 * The fixed module cold imports are measured against: plain code of a
 * library's shape (classes, functions, frozen tables, a few top-level
 * calls), generated, so it is the same in every run and on every machine.
 */
export const BASELINE_MODULE = Array.from(
  { length: 300 },
  (_, index) => `export class Shape${index} {
  constructor(value) { this.value = value + ${index}; this.label = 'shape ${index}'; }
  scaled(factor) { return this.value * factor + ${index}; }
  describe() { return \`\${this.label}: \${String(this.value)}\`; }
}
export function transform${index}(items, offset) { return items.map((item) => item * ${index} + offset).filter((item) => item % 3 !== 0); }
export const table${index} = Object.freeze({ id: ${index}, name: 'entry ${index}', codes: Object.freeze(['A${index}', 'B${index}']) });
export const lookup${index} = new Map([['first', ${index}], ['second', ${index + 1}]]);
`,
).join('');

/** The baseline's file name in the project. */
const BASELINE_FILE = 'cold-import-baseline.mjs';

/** Milliseconds one fresh Node.js process in `project` takes to `import()` `specifier`, timed inside the process. */
function coldImportMs(project: string, specifier: string): number {
  const script = `const started = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - started);`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' }));
}

/** A cold import of an entry point against the baseline's. */
export interface ColdImport {
  /** The entry's fastest cold import over the baseline's. */
  readonly ratio: number;
  /** The entry's fastest cold import, in milliseconds. */
  readonly entryMs: number;
  /** The baseline's fastest cold import, in milliseconds. */
  readonly baselineMs: number;
}

/** Cold imports of each entry point from `project`, each against the baseline, alternating the two over `rounds` rounds. */
export function coldImports(project: string, entries: readonly string[], rounds: number): Record<string, ColdImport> {
  writeFileSync(join(project, BASELINE_FILE), BASELINE_MODULE);
  const measured: Record<string, ColdImport> = {};
  for (const entry of entries) {
    let entryMs = Infinity;
    let baselineMs = Infinity;
    for (let round = 0; round < rounds; round++) {
      baselineMs = Math.min(baselineMs, coldImportMs(project, `./${BASELINE_FILE}`));
      entryMs = Math.min(entryMs, coldImportMs(project, entry));
    }
    measured[entry] = { ratio: entryMs / baselineMs, entryMs, baselineMs };
  }
  return measured;
}

/** Kilobytes of 1,024 bytes, one decimal. */
function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/**
 * The figures as `npm run bench` prints them, for the build in `dist/`:
 * bundles and cold imports (over `rounds` rounds each), with the budgets of
 * `budgets` beside them.
 */
export async function startupReport(
  repository: string,
  budgets: { readonly bundles: Record<string, number>; readonly coldImports: { readonly ratios: Record<string, number> } },
  rounds: number,
): Promise<string> {
  // A project whose `staged-middleware` is this repository: its exports map points at dist/.
  const project = mkdtempSync(join(tmpdir(), 'staged-middleware-startup-'));
  try {
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(repository, join(project, 'node_modules', 'staged-middleware'), 'junction');
    writeFileSync(join(project, 'package.json'), '{ "private": true, "type": "module" }\n');
    const sizes = await bundleSizes(project);
    const imports = coldImports(project, IMPORTABLE_ENTRY_POINTS, rounds);
    const bundleRows = BUNDLE_SCENARIOS.map(({ name }) => {
      const size = sizes[name] as BundleSize;
      const budget = budgets.bundles[name];
      return `| ${name} | ${kilobytes(size.minified)} | ${kilobytes(size.gzipped)} (${String(size.gzipped)} B) | ${budget === undefined ? '' : String(budget)} | ${size.zod ? 'yes' : 'no'} |`;
    });
    const importRows = IMPORTABLE_ENTRY_POINTS.map((entry) => {
      const { ratio, entryMs, baselineMs } = imports[entry] as ColdImport;
      return `| ${entry} | ${entryMs.toFixed(1)} ms | ${baselineMs.toFixed(1)} ms | ${ratio.toFixed(2)} | ${String(budgets.coldImports.ratios[entry] ?? '')} |`;
    });
    return [
      'Bundles (esbuild, minified, browser, ES module; gzip -9):',
      '| bundle | minified | gzipped | budget (B) | zod |',
      '| --- | --- | --- | --- | --- |',
      ...bundleRows,
      '',
      `Cold import() in a fresh process, fastest of ${String(rounds)}, against a fixed module imported cold:`,
      '| entry point | import | baseline | ratio | budget |',
      '| --- | --- | --- | --- | --- |',
      ...importRows,
    ].join('\n');
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
