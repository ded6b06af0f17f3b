/**
 * How the package recognises its own objects (stages, phase tokens, results,
 * errors, interrupt signals, script steps), across every copy of it loaded in
 * a realm: two installed versions side by side, or the ESM and CommonJS
 * builds in one process, where `instanceof` fails.
 *
 * Why a realm-wide record rather than a marker property: a marker can be
 * forged by any object literal (`{ [marker]: true, value }` would pass for a
 * result, a copied stage for the stage itself), while the record knows only
 * objects the package created. It lives on `globalThis` under a `Symbol.for`
 * key, so every copy finds the same one, and holds objects weakly, so
 * branding keeps nothing alive.
 *
 * The record knows objects in one of two ways, by kind. Objects made now and
 * then (stages, tokens, errors) are entries of a `WeakMap`. Results are made
 * once per invoke, where a weak-map entry costs about a seventh of a whole
 * invoke with five handlers (the garbage collector treats each entry of a
 * weak map specially), so their class is branded instead: each copy adds to the
 * record a check of its own class's private field, which only that copy's
 * constructor can give an object.
 *
 * @packageDocumentation
 */
import { isObject } from './is-object';

/** What a branded object is. The names are shared by every copy of the package: never rename one. */
export type BrandKind = 'stage' | 'phase-token' | 'result' | 'error' | 'interrupt-signal' | 'script-action';

/** Whether an object is an instance of one copy's branded class; never throws, whatever the object. */
export type InstanceCheck = (value: object) => boolean;

/** The realm's record, shared by every copy: single objects by kind, and each copy's instance checks by kind. */
interface RealmBrands {
  /** Objects branded one by one. */
  readonly objects: WeakMap<object, BrandKind>;
  /** The instance checks of the copies' branded classes. */
  readonly classes: Map<BrandKind, InstanceCheck[]>;
}

/** The key every copy of the package finds the realm's record under; a record of another shape would take another key. */
const BRANDS_KEY = Symbol.for('staged-middleware.brands.v1');

/** The realm's record, once this copy has looked it up. */
let realmBrands: RealmBrands | undefined;

/** The realm's record: the one a copy loaded earlier published, else a new one, published for the copies loaded later. */
function brands(): RealmBrands {
  if (realmBrands !== undefined) return realmBrands;
  const holder = globalThis as unknown as Record<symbol, RealmBrands | undefined>;
  let record = holder[BRANDS_KEY];
  if (!(record?.objects instanceof WeakMap && record.classes instanceof Map)) {
    record = Object.freeze({ objects: new WeakMap(), classes: new Map() });
    try {
      // Neither writable nor configurable: no code can swap in a record of its own and forge brands.
      Object.defineProperty(globalThis, BRANDS_KEY, { value: record, writable: false, enumerable: false, configurable: false });
    } catch {
      // A frozen global (a hardened realm), or a key some other code took: this copy still recognises its own objects.
    }
  }
  realmBrands = record;
  return record;
}

/** Records `value` as a `kind` created by this package; returns it. */
export function brand<TValue extends object>(value: TValue, kind: BrandKind): TValue {
  brands().objects.set(value, kind);
  return value;
}

/** Records `check` as how this copy tells the instances of its class of `kind` (a check of a private field of the class). */
export function brandClass(kind: BrandKind, check: InstanceCheck): void {
  const { classes } = brands();
  const checks = classes.get(kind);
  if (checks === undefined) classes.set(kind, [check]);
  else checks.push(check);
}

/** True when `value` was created by this package (any copy in the realm) as a `kind`. Reads nothing of `value`, so it never throws. */
export function isBranded(value: unknown, kind: BrandKind): value is object {
  if (!isObject(value)) return false;
  const record = brands();
  if (record.objects.get(value) === kind) return true;
  const checks = record.classes.get(kind);
  if (checks !== undefined) for (const check of checks) if (check(value)) return true;
  return false;
}

/**
 * What an object branded one by one (with {@link brand}) is, or undefined:
 * one lookup where telling a stage from a phase token with {@link isBranded}
 * takes two (`add` runs it on every registration). Objects of branded
 * classes (results) are not answered here.
 */
export function brandOf(value: unknown): BrandKind | undefined {
  // A weak map's get() answers undefined for a value that cannot be a key (null, a string), so nothing is checked first.
  return brands().objects.get(value as object);
}
