/**
 * The library's TypeScript sources as one script for the bare realm, when
 * the command line runs from them (under tsx): bundled by esbuild as the
 * package build bundles them (immer built in through
 * `build/immer-without-process.ts`), with the `bare-realm` scenario. Loaded
 * by `bare-realm.ts` only then; the installed command loads the build instead.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { immerWithoutProcess, processShim } from '../../build/immer-without-process';

/** The repository, where the build runs (processShim is relative to it). */
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The bundle's entry: the four entry points and the scenario, exposed as `scenario.run()`. */
const entry = `
import * as core from './src/core/index';
import * as agent from './src/agent/index';
import * as middleware from './src/middleware/index';
import * as testing from './src/testing/index';
import { bareRealm } from './conformance/reliability/bare-realm';
export const run = () => bareRealm({ core, agent, middleware, testing });
`;

/** The script: declares `var scenario`, whose `run()` runs the scenario with the bundled library. */
export async function bundleSources(): Promise<string> {
  const bundled = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: 'bare-realm-entry.ts' },
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'scenario',
    platform: 'neutral',
    target: 'es2022',
    inject: [processShim],
    plugins: [immerWithoutProcess],
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]?.text ?? '';
}
