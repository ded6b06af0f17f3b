/**
 * Where the bytes of one bundle scenario of `startup-figures.ts` go: each
 * source module's share of the gzipped bundle, that is the whole less the
 * whole gzipped without that module's code (what taking the module out would
 * save; gzip shares repeated text across modules, so the shares add up to a
 * little less than the whole).
 *
 * The scenario is bundled from the sources (`src/`, `conformance/`), where
 * a bundler keeps only the modules it reaches (the built package's chunks
 * can keep more: `bench/README.md`): minified but for whitespace, so that
 * esbuild marks where each module's code starts; each part is then measured
 * with the whitespace minified too. Legal comments stay with their module
 * (immer's licence counts as immer's). zod is left out: the budgets bundle
 * it, so their figures of the bundles that hold it are larger, and of the
 * others slightly larger (the lazy loading of zod). Not a figure
 * of `npm run bench`: a tool to read the record in `bench/README.md` against.
 *
 * ```sh
 * npx tsx bench/bundle-shares.ts                          # the `agent with one middleware` scenario
 * npx tsx bench/bundle-shares.ts registry --by-directory  # another scenario, shares summed by directory
 * ```
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, transform, type BuildOptions, type Plugin } from 'esbuild';
import { immerWithoutProcess, processShim } from '../build/immer-without-process';
import { BUNDLE_SCENARIOS, EXTERNAL, exportsOf } from './startup-figures';

const project = fileURLToPath(new URL('..', import.meta.url));

/** The source module of an entry point, as `tsup.config.ts` builds it. */
function sourceOf(entry: string): string {
  const path = entry.slice('staged-middleware'.length).replace(/^\//, '');
  if (path === '') return 'src/core/index.ts';
  if (path === 'conformance') return 'conformance/index.ts';
  return `src/${path.replace('/', '-')}/index.ts`;
}

/** Resolves the package's entry points to their sources. */
const fromSources: Plugin = {
  name: 'from-sources',
  setup(builder) {
    builder.onResolve({ filter: /^staged-middleware(\/|$)/ }, ({ path }) => ({ path: `${project}${sourceOf(path)}` }));
  },
};

/** Gzipped bytes of `code` once its whitespace is minified. */
async function gzipped(code: string): Promise<number> {
  const { code: minified } = await transform(code, { minifyWhitespace: true, format: 'esm', legalComments: 'inline' });
  return gzipSync(minified, { level: 9 }).length;
}

const args = process.argv.slice(2);
const byDirectory = args.includes('--by-directory');
const name = args.find((arg) => !arg.startsWith('--')) ?? 'agent with one middleware';
const scenario = BUNDLE_SCENARIOS.find((candidate) => candidate.name === name);
if (scenario === undefined)
  throw new Error(`no bundle scenario "${name}"; the scenarios: ${BUNDLE_SCENARIOS.map((s) => s.name).join(', ')}`);

const options: BuildOptions = {
  stdin: { contents: scenario.source((entry) => exportsOf(project, entry)), resolveDir: project, sourcefile: 'scenario.mjs', loader: 'js' },
  absWorkingDir: project,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  external: [...EXTERNAL, 'zod'],
  plugins: [fromSources, immerWithoutProcess],
  inject: [processShim],
  tsconfig: 'tsconfig.src.json',
  write: false,
  logLevel: 'silent',
};
// As the budgets measure it, for comparison: fully minified, legal comments at the end.
const bundled = await build({ ...options, minify: true });
const result = await build({ ...options, minifySyntax: true, minifyIdentifiers: true, legalComments: 'inline' });
// The exports at the end name bindings of every module; without them, any module's code can be left out.
const text = (result.outputFiles?.[0]?.text ?? '').replace(/\nexport \{[^}]*\};?\s*$/, '\n');

const parts = new Map<string, string[]>();
let current = '(the bundle itself)';
for (const line of text.split('\n')) {
  const start = /^\/\/ (\S+\.(?:m?js|ts))$/.exec(line);
  if (start?.[1] !== undefined) {
    const module = start[1].replace(/^.*node_modules\//, '');
    current = byDirectory && module.includes('/') ? module.slice(0, module.lastIndexOf('/')) : module;
  } else {
    (parts.get(current) ?? parts.set(current, []).get(current))?.push(line);
  }
}

const whole = await gzipped(text);
const rows: { part: string; share: number; minified: number }[] = [];
for (const [part, lines] of parts) {
  const rest = [...parts].filter(([other]) => other !== part).flatMap(([, other]) => other);
  const { code } = await transform(lines.join('\n'), { minifyWhitespace: true, legalComments: 'inline' });
  rows.push({ part, share: whole - (await gzipped(rest.join('\n'))), minified: code.length });
}
rows.sort((a, b) => b.share - a.share);
const total = rows.reduce((sum, row) => sum + row.share, 0);
process.stdout.write(
  [
    `${scenario.name}: ${gzipSync(bundled.outputFiles?.[0]?.contents ?? '', { level: 9 }).length} B gzipped fully minified (as the budgets measure a bundle, here from the sources), ${whole} B as measured here (the shares add up to ${total} B)`,
    '| part | minified (B) | share of the gzipped bundle (B) |',
    '| --- | --- | --- |',
    ...rows.map(({ part, share, minified }) => `| ${part} | ${minified} | ${share} |`),
    '',
  ].join('\n'),
);
