/**
 * The library the benchmark measures: the built package in `dist/` (its ESM
 * build), as users run it, rather than `src/` through a TypeScript loader,
 * which compiles differently (tsx keeps function names, for one, which makes
 * every arrow function assigned to a field cost a `defineProperty`).
 *
 * The types come from `src/`, so the benchmark type-checks on a fresh clone;
 * the values are loaded from `dist/` when the benchmark runs. `npm run bench`
 * builds first; running `bench/run.ts` by hand needs a prior `npm run build`.
 * `BENCH_DIST=<directory>` measures another build instead (a copy of an
 * earlier `dist/`, to compare two versions on the same machine). The copy
 * needs a `package.json` saying `"type": "module"` beside it or above it:
 * without one Node loads the ESM build by syntax detection, which measured
 * `invoke_k0_1ev` at 2.3 instead of 0.77, so the benchmark refuses it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as AgentKit from '../src/agent/index';
import type * as AiSdk from '../src/ai-sdk/index';
import type * as Core from '../src/core/index';
import type * as Durable from '../src/durable/index';
import type * as Testing from '../src/testing/index';

const given = process.env.BENCH_DIST;
const DIST = given === undefined || given === '' ? new URL('../dist/', import.meta.url) : pathToFileURL(`${resolve(given)}/`);

/** Whether the nearest `package.json` at or above `directory` declares ES modules, as the package's own does. */
function declaresModules(directory: URL): boolean {
  for (let url = new URL('package.json', directory); ; url = new URL('../package.json', url)) {
    if (existsSync(url)) return (JSON.parse(readFileSync(url, 'utf8')) as { type?: unknown }).type === 'module';
    if (new URL('../package.json', url).href === url.href) return false;
  }
}

if (given !== undefined && given !== '' && !declaresModules(DIST)) {
  throw new Error(
    `BENCH_DIST=${given} has no package.json with "type": "module" beside or above it, so Node would load the ESM build by syntax detection, which is slower and would skew every ratio. Copy the package.json along with dist/ (or write {"type": "module"} beside it).`,
  );
}

/** Imports one entry point of the build, with a clear error when there is no build. */
async function load<TModule>(entry: string): Promise<TModule> {
  const url = new URL(entry, DIST);
  if (!existsSync(url)) {
    throw new Error(
      `The benchmark measures the built package, and ${entry} is missing from ${DIST.pathname}. Run npm run build first (npm run bench does).`,
    );
  }
  return (await import(url.href)) as TModule;
}

/** `staged-middleware`, as built. */
export const core = await load<typeof Core>('index.js');

/** `staged-middleware/agent`, as built. */
export const agentKit = await load<typeof AgentKit>('agent/index.js');

/** `staged-middleware/durable`, as built. */
export const durableKit = await load<typeof Durable>('durable/index.js');

/** `staged-middleware/ai-sdk`, as built. */
export const aiSdk = await load<typeof AiSdk>('ai-sdk/index.js');

/** `staged-middleware/testing`, as built. */
export const testingKit = await load<typeof Testing>('testing/index.js');
