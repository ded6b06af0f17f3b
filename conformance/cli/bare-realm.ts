import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext, type Context } from 'node:vm';
import { bareRealm, type LibraryEntries } from '../reliability/bare-realm';
import type { Json } from '../cases/case-base';

/**
 * The web platform's globals a browser, a worker or an edge runtime gives
 * every script, copied from Node.js into the bare realm; nothing of Node.js's
 * own (`process`, `Buffer`, `require`, `global`, `setImmediate`) goes in.
 */
const WEB_GLOBALS = [
  'AbortController', 'AbortSignal', 'Blob', 'ByteLengthQueuingStrategy', 'CompressionStream', 'CountQueuingStrategy', 'Crypto', 'CryptoKey',
  'CustomEvent', 'DOMException', 'DecompressionStream', 'Event', 'EventTarget', 'File', 'FormData', 'Headers', 'MessageChannel', 'MessageEvent',
  'MessagePort', 'Performance', 'ReadableStream', 'Request', 'Response', 'SubtleCrypto', 'TextDecoder', 'TextDecoderStream', 'TextEncoder',
  'TextEncoderStream', 'TransformStream', 'URL', 'URLSearchParams', 'WritableStream', 'atob', 'btoa', 'clearInterval', 'clearTimeout', 'console',
  'crypto', 'fetch', 'performance', 'queueMicrotask', 'setInterval', 'setTimeout', 'structuredClone',
] as const; // prettier-ignore

/** The library's four entry points, as the build names them. */
const ENTRY_POINTS = { core: 'index', agent: 'agent/index', middleware: 'middleware/index', testing: 'testing/index' } as const;

/** The names and symbols of the realm's global object, as strings. */
const GLOBAL_KEYS = 'Reflect.ownKeys(globalThis).map(String)';

/**
 * Runs the `bare-realm` reliability scenario (MW-204) the command line's
 * way: in a new Node.js realm (a `node:vm` context) holding the standard
 * globals and the web platform's, and no `process`, with a copy of the
 * library loaded there. From the build, that copy is the package's CommonJS
 * build of the four entry points, evaluated in the realm by a loader that
 * resolves only the build's own files, and the scenario is `bareRealm`'s
 * source text; from the TypeScript sources (under tsx), it is `src/` bundled
 * by esbuild as the package build bundles it, with the scenario.
 */
export async function runInBareRealm(): Promise<Json> {
  const host = globalThis as unknown as Record<string, unknown>;
  const context = createContext(
    Object.fromEntries(WEB_GLOBALS.filter((name) => host[name] !== undefined).map((name) => [name, host[name]])),
  );
  const before = new Set(runInContext(GLOBAL_KEYS, context) as string[]);
  const run = import.meta.url.endsWith('.ts') ? await loadSources(context) : loadBuild(context);
  const observed = JSON.parse(JSON.stringify(await run())) as Record<string, Json>;
  const globals = (runInContext(GLOBAL_KEYS, context) as string[]).filter((key) => !before.has(key)).sort();
  return { ...observed, globals };
}

/** The built entry points, loaded in `context` as CommonJS, and the scenario evaluated there from its source text. */
function loadBuild(context: Context): () => Promise<Json> {
  const directory = dirname(fileURLToPath(import.meta.url));
  const modules = new Map<string, { exports: unknown }>();
  const load = (file: string): unknown => {
    const loaded = modules.get(file);
    if (loaded !== undefined) return loaded.exports;
    const module = runInContext('({ exports: {} })', context) as { exports: unknown };
    modules.set(file, module);
    const wrapper = runInContext(`(function (exports, require, module) {${readFileSync(file, 'utf8')}\n})`, context, {
      filename: file,
    }) as (exports: unknown, require: (specifier: string) => unknown, module: unknown) => void;
    wrapper(
      module.exports,
      (specifier) => {
        // The library's builds import only their own chunks; anything else would be a dependency the realm lacks.
        if (!specifier.startsWith('./') && !specifier.startsWith('../'))
          throw new Error(`${file} requires "${specifier}", which the bare realm does not have.`);
        return load(resolve(dirname(file), specifier));
      },
      module,
    );
    return module.exports;
  };
  const entries = Object.fromEntries(
    Object.entries(ENTRY_POINTS).map(([key, name]) => [key, load(resolve(directory, `${name}.cjs`))]),
  ) as unknown as LibraryEntries;
  const scenario = runInContext(`(${bareRealm.toString()})`, context) as typeof bareRealm;
  return () => scenario(entries);
}

/** `src/` and the scenario bundled into one script, evaluated in `context`; the bundler is a development dependency, loaded only here. */
async function loadSources(context: Context): Promise<() => Promise<Json>> {
  // A computed specifier, so the package build does not take the bundler in.
  const sources = (await import(new URL('./bare-realm-sources.ts', import.meta.url).href)) as typeof import('./bare-realm-sources');
  const script = await sources.bundleSources();
  const scenario = runInContext(`(function () {\n${script}\nreturn scenario;\n})()`, context) as { run: () => Promise<Json> };
  return () => scenario.run();
}
