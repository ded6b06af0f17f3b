/**
 * How the package recognises its own objects (stages, phase tokens, results,
 * errors, interrupt signals, script steps), across every copy of it loaded in
 * a realm: two installed versions side by side, or the ESM and CommonJS
 * builds in one process, where `instanceof` fails.
 *
 * Why a realm-wide `WeakMap` rather than a marker property: a marker can be
 * forged by any object literal (`{ [marker]: true, value }` would pass for a
 * result, a copied stage for the stage itself), while an entry in the map
 * exists only for an object the package created. The map lives on
 * `globalThis` under a `Symbol.for` key, so every copy finds the same one;
 * it holds its objects weakly, so branding keeps nothing alive.
 *
 * @packageDocumentation
 */

/** What a branded object is. The names are shared by every copy of the package: never rename one. */
export type BrandKind = 'stage' | 'phase-token' | 'result' | 'error' | 'interrupt-signal' | 'script-action';

/** The key every copy of the package finds the realm's brands under. */
const BRANDS_KEY = Symbol.for('staged-middleware.brands');

/** The realm's brands, once this copy has looked them up. */
let realmBrands: WeakMap<object, BrandKind> | undefined;

/** The realm's brands: the map a copy loaded earlier published, else a new one, published for the copies loaded later. */
function brands(): WeakMap<object, BrandKind> {
  if (realmBrands !== undefined) return realmBrands;
  const holder = globalThis as unknown as Record<symbol, WeakMap<object, BrandKind> | undefined>;
  let map = holder[BRANDS_KEY];
  if (map === undefined) {
    map = new WeakMap();
    try {
      // Neither writable nor configurable: no code can swap in a map of its own and forge brands.
      Object.defineProperty(globalThis, BRANDS_KEY, { value: map, writable: false, enumerable: false, configurable: false });
    } catch {
      // A frozen global (a hardened realm): this copy still recognises its own objects.
    }
  }
  realmBrands = map;
  return map;
}

/** Records `value` as a `kind` created by this package; returns it. */
export function brand<TValue extends object>(value: TValue, kind: BrandKind): TValue {
  brands().set(value, kind);
  return value;
}

/** True when `value` was created by this package (any copy in the realm) as a `kind`. Reads nothing of `value`, so it never throws. */
export function isBranded(value: unknown, kind: BrandKind): value is object {
  return typeof value === 'object' && value !== null && brands().get(value) === kind;
}
