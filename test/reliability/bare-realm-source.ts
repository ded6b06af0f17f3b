/**
 * Runs the `bare-realm` scenario (`bare-realm.ts`) on `src/`: bundled with
 * esbuild as the package build bundles it (immer built in through
 * `build/immer-without-process.ts`, zod left to types), then evaluated in
 * Vercel's edge-runtime, a realm with the web platform's globals and no
 * `process`. The packed-package tier runs the same scenario on the installed
 * ESM build, loaded there as ES modules.
 */
import { EdgeRuntime } from 'edge-runtime';
import { build } from 'esbuild';
import type { z } from 'zod';
import { immerWithoutProcess, processShim } from '../../build/immer-without-process';
import { root } from '../readme-blocks';

type Json = z.infer<ReturnType<typeof z.json>>;

/** The bundle's entry: the four entry points and the scenario, exposed as `scenario.run()`. */
const entry = `
import * as core from './src/index';
import * as agent from './src/agent/index';
import * as middleware from './src/middleware/index';
import * as testing from './src/testing/index';
import { bareRealm } from './test/reliability/bare-realm';
export const run = () => bareRealm({ core, agent, middleware, testing });
`;

/** The names and symbols of a realm's global object, as strings. */
const GLOBAL_KEYS = 'Reflect.ownKeys(globalThis).map(String)';

/** Bundles `src/` with the scenario, evaluates it in a fresh edge-runtime realm, and returns what it observed with the globals it added. */
export async function bareRealmOfSource(): Promise<Json> {
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
  const runtime = new EdgeRuntime();
  const before = new Set(Array.from(runtime.evaluate<string[]>(GLOBAL_KEYS)));
  // Wrapped in a function so the bundle's own `var scenario` is no global of the realm.
  const scenario = runtime.evaluate<{ run: () => Promise<Json> }>(`(function () {\n${bundled.outputFiles[0]?.text ?? ''}\nreturn scenario;\n})()`);
  const observed = JSON.parse(JSON.stringify(await scenario.run())) as Record<string, Json>;
  const globals = Array.from(runtime.evaluate<string[]>(GLOBAL_KEYS)).filter((key) => !before.has(key)).sort();
  return { ...observed, globals };
}
