// The bare-realm reliability scenario (bare-realm.mjs, MW-204) on the package's ESM build, unbundled, in a Vercel
// edge-runtime context (no `process`, no Node.js API): every entry point is loaded there as ES modules, bare imports
// resolved by each package's "exports" as an edge resolver would. Prints what the scenario observed, with the keys
// loading and running added to the realm's global object and the packages loaded, as JSON. Run with
// --experimental-vm-modules; argv[2] is the path of the edge-runtime package's entry.
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const { EdgeRuntime } = createRequire(import.meta.url)(process.argv[2]);
const runtime = new EdgeRuntime();
const here = dirname(fileURLToPath(import.meta.url));
const conditions = ['edge-light', 'worker', 'browser', 'import', 'default'];

/** The file a package's "exports" map gives for one subpath under the edge conditions. */
function exported(target) {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object') return undefined;
  for (const [condition, value] of Object.entries(target)) if (conditions.includes(condition)) return exported(value);
  return undefined;
}

/** Resolves an import the way an ESM resolver does: relative to the importer, or a package by its exports. */
function resolveImport(specifier, importer) {
  if (specifier.startsWith('./') || specifier.startsWith('../')) return realpathSync(resolve(dirname(importer), specifier));
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const subpath = `.${specifier.slice(name.length)}`;
  const directory = join(here, 'node_modules', name);
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
  const subpaths =
    typeof manifest.exports === 'object' && Object.keys(manifest.exports).some((key) => key.startsWith('.'))
      ? manifest.exports
      : { '.': manifest.exports };
  const target = exported(subpaths[subpath]);
  if (target === undefined) throw new Error(`${specifier} has no export for the edge conditions`);
  return realpathSync(join(directory, target));
}

const modules = new Map();
/** The module of one file, in the edge context, created once. */
function load(file) {
  let module = modules.get(file);
  if (module === undefined) {
    module = new vm.SourceTextModule(readFileSync(file, 'utf8'), { identifier: file, context: runtime.context });
    modules.set(file, module);
  }
  return module;
}

const entry = new vm.SourceTextModule(
  `import * as core from 'staged-middleware';
import * as agent from 'staged-middleware/agent';
import * as middleware from 'staged-middleware/middleware';
import * as testing from 'staged-middleware/testing';
// Loaded, not run: loading the AI SDK adapter, MCP toolsets and the durable layer must need nothing of the host either.
import 'staged-middleware/ai-sdk';
import 'staged-middleware/mcp';
import 'staged-middleware/durable';
import { bareRealm } from './bare-realm.mjs';
export const run = () => bareRealm({ core, agent, middleware, testing });`,
  { identifier: join(here, 'bare-realm-entry.mjs'), context: runtime.context },
);
const globalKeys = () => Array.from(runtime.evaluate('Reflect.ownKeys(globalThis).map(String)'));
const before = new Set(globalKeys());
await entry.link((specifier, referencing) => load(resolveImport(specifier, referencing.identifier)));
await entry.evaluate();
const observed = JSON.parse(JSON.stringify(await entry.namespace.run()));
const globals = globalKeys()
  .filter((key) => !before.has(key))
  .sort();
/** The package a loaded file belongs to. */
const packageOf = (file) => {
  const [first, second] = file.slice(file.lastIndexOf('/node_modules/') + '/node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
};
const packages = [...new Set([...modules.keys()].filter((file) => file.includes('/node_modules/')).map(packageOf))].sort();
console.log(JSON.stringify({ ...observed, globals, packages }));
