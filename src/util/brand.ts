/**
 * Genuine stage, phase-token and result objects, recognised across two
 * installed copies of the package.
 *
 * Why a shared WeakSet instead of a marker property: a marker can be forged by
 * any object literal, and a forged "stage" would silently fail to match any
 * registration. The set lives on `globalThis` under a `Symbol.for` key so a
 * stage created by one copy is still genuine to another.
 */
const GENUINE_KEY = Symbol.for('staged-middleware.genuine');

function genuine(): WeakSet<object> {
  const holder = globalThis as unknown as Record<symbol, WeakSet<object> | undefined>;
  let set = holder[GENUINE_KEY];
  if (set === undefined) {
    set = new WeakSet();
    holder[GENUINE_KEY] = set;
  }
  return set;
}

/** Records `value` as created by this package. */
export function markGenuine(value: object): void {
  genuine().add(value);
}

/** True when `value` was created by this package (any installed copy). */
export function isGenuine(value: unknown): value is object {
  return typeof value === 'object' && value !== null && genuine().has(value);
}
