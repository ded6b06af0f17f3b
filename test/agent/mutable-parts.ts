/** The probe the hand-out tests of the agent use: which parts of a value accept a change. */

/** Keys whose values the agent shares by reference on purpose (MW-105, MW-112): not walked. */
export const SHARED = new Set(['error', 'invocationState', 'signal', 'interrupt', 'model', 'tool', 'reason']);

function isWalked(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

/**
 * Tries to change every array and plain object inside `value` (pushing onto an
 * array, adding a key to an object) and returns the paths of those that accepted it.
 */
export function mutableParts(value: unknown, path: string, shared: ReadonlySet<string> = SHARED): string[] {
  if (!isWalked(value)) return [];
  const found: string[] = [];
  try {
    if (Array.isArray(value)) value.push('probe');
    else (value as Record<string, unknown>).probe = 'probe';
    found.push(path);
    if (Array.isArray(value)) value.pop();
    else delete (value as Record<string, unknown>).probe;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  for (const [key, part] of Object.entries(value)) if (!shared.has(key)) found.push(...mutableParts(part, `${path}.${key}`, shared));
  return found;
}
