import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentLoopAdapter } from '../index';

/**
 * Loads the agent loop adapter a module exports as `adapter`. A TypeScript
 * module that Node.js cannot load by itself is loaded through tsx, when the
 * project that runs the command has it installed (`npm install -D tsx`).
 *
 * @throws Error saying what the module lacks, or how to load TypeScript.
 */
export async function loadAdapter(path: string, cwd: string): Promise<AgentLoopAdapter> {
  const url = pathToFileURL(isAbsolute(path) ? path : resolve(cwd, path)).href;
  let loaded: { adapter?: unknown };
  try {
    loaded = (await import(url)) as { adapter?: unknown };
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
    await registerTsx(cwd, path);
    // Node.js remembers the failed load of the plain URL; the query makes it a new module.
    loaded = (await import(`${url}?tsx`)) as { adapter?: unknown };
  }
  const { adapter } = loaded;
  const shape = adapter as Partial<AgentLoopAdapter> | null | undefined;
  if (
    typeof shape !== 'object' ||
    shape === null ||
    typeof shape.name !== 'string' ||
    !Array.isArray(shape.capabilities) ||
    typeof shape.start !== 'function'
  ) {
    throw new Error(
      `${path} must export \`adapter\`: an AgentLoopAdapter { name, capabilities, start(setup) } (see staged-middleware/conformance).`,
    );
  }
  return shape as AgentLoopAdapter;
}

/**
 * Registers tsx's loader, found from the project running the command. Its
 * ESM API is located through tsx's `exports`: a CommonJS `require.resolve`
 * would pick the CommonJS build of the API, which cannot register ESM hooks.
 */
async function registerTsx(cwd: string, path: string): Promise<void> {
  let manifest: string;
  try {
    manifest = createRequire(join(cwd, 'package.json')).resolve('tsx/package.json');
  } catch {
    throw new Error(
      `${path} is TypeScript, which Node.js cannot load by itself: install tsx (npm install -D tsx) or compile the adapter to JavaScript.`,
    );
  }
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = exports['./esm/api']?.import.default;
  if (api === undefined) throw new Error(`The tsx installed at ${dirname(manifest)} has no ESM API (tsx/esm/api): install tsx 4 or later.`);
  const { register } = (await import(pathToFileURL(join(dirname(manifest), api)).href)) as { register: () => unknown };
  register();
}
