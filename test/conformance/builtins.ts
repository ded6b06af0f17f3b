/**
 * Built-in middleware a case can name as `{ "builtin": "<name>", "options": {...} }`.
 * Each entry turns the case's JSON options into a bundle to register.
 */
import type { Middleware } from '../../src/index';

/** Makes a bundle from a case's JSON options. */
export type BuiltinFactory = (options: Record<string, unknown>) => Middleware;

/** Every built-in a case may name, by name. */
export const builtins: ReadonlyMap<string, BuiltinFactory> = new Map<string, BuiltinFactory>();

/**
 * The factory for `name`.
 *
 * @throws Error naming the known built-ins when `name` is not one of them.
 */
export function builtin(name: string): BuiltinFactory {
  const factory = builtins.get(name);
  if (factory === undefined) {
    const known = [...builtins.keys()];
    throw new Error(`Unknown built-in middleware "${name}" in a conformance case. Known: ${known.length === 0 ? 'none yet' : known.join(', ')}. Add it to test/conformance/builtins.ts.`);
  }
  return factory;
}
