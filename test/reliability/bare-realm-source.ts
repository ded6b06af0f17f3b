/**
 * The vitest host's way to run the `bare-realm` reliability scenario
 * (`conformance/reliability/bare-realm.ts`) on `src/`: bundled as the
 * command line bundles the sources (`conformance/cli/bare-realm-sources.ts`, immer built
 * in as the package build builds it), then evaluated in Vercel's
 * edge-runtime, a realm with the web platform's globals and no `process`.
 * The command line runs it in a Node.js realm of its own, the packed-package
 * tier on the installed ESM build in edge-runtime, the integration tier in
 * headless Chromium.
 */
import { EdgeRuntime } from 'edge-runtime';
import type { z } from 'zod';
import { bundleSources } from '../../conformance/cli/bare-realm-sources';

type Json = z.infer<ReturnType<typeof z.json>>;

/** The names and symbols of a realm's global object, as strings. */
const GLOBAL_KEYS = 'Reflect.ownKeys(globalThis).map(String)';

/** Bundles `src/` with the scenario, evaluates it in a fresh edge-runtime realm, and returns what it observed with the globals it added. */
export async function bareRealmOfSource(): Promise<Json> {
  const script = await bundleSources();
  const runtime = new EdgeRuntime();
  const before = new Set(Array.from(runtime.evaluate<string[]>(GLOBAL_KEYS)));
  // Wrapped in a function so the bundle's own `var scenario` is no global of the realm.
  const scenario = runtime.evaluate<{ run: () => Promise<Json> }>(`(function () {\n${script}\nreturn scenario;\n})()`);
  const observed = JSON.parse(JSON.stringify(await scenario.run())) as Record<string, Json>;
  const globals = Array.from(runtime.evaluate<string[]>(GLOBAL_KEYS))
    .filter((key) => !before.has(key))
    .sort();
  return { ...observed, globals };
}
