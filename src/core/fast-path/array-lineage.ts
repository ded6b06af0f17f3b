/**
 * Which frozen arrays extend which, so that the length two of them share at
 * the start can be found in a few steps rather than by comparing them item by
 * item.
 *
 * A history replaces its frozen array on every append with a copy that
 * extends the one before (MW-105), and a reader that kept what it made of an
 * earlier array (the AI SDK adapter's converted prompt, MW-145) needs how much
 * of a new array it has seen already. At 10,000 messages the comparison costs
 * more than the rest of the adapter's call. Each extension recorded here
 * links the new array to its base through a small node that holds no array,
 * so nothing recorded keeps an array alive; a chain is cut after
 * {@link MOST_STEPS} links, so a long-lived history keeps a few nodes, not
 * one per append. Nothing is recorded until a reader first asks, so a
 * process without one pays only a flag's read per append.
 */

/** An array's place in its lineage: the node of the array it extends, and its own length. */
interface Lineage {
  readonly parent: Lineage | undefined;
  readonly length: number;
  /** Links up to the root of its chain. */
  readonly depth: number;
}

/** The most links a chain keeps: an extension of an array that deep starts a chain of its own. */
const MOST_STEPS = 32;

const lineages = /*#__PURE__*/ new WeakMap<readonly unknown[], Lineage>();

/** Whether any reader has asked: until then, nothing is recorded. */
let asked = false;

function lineageOf(array: readonly unknown[]): Lineage {
  let lineage = lineages.get(array);
  if (lineage === undefined) lineages.set(array, (lineage = { parent: undefined, length: array.length, depth: 0 }));
  return lineage;
}

/**
 * Records that `next` extends `base`: its first `base.length` items are `base`'s, in order. Recorded only when both
 * are frozen, so that it stays true.
 */
export function recordExtension(next: readonly unknown[], base: readonly unknown[]): void {
  if (!asked || !Object.isFrozen(next) || !Object.isFrozen(base)) return;
  const parent = lineageOf(base);
  lineages.set(
    next,
    parent.depth < MOST_STEPS
      ? { parent, length: next.length, depth: parent.depth + 1 }
      : { parent: undefined, length: next.length, depth: 0 },
  );
}

/**
 * How many items `a` and `b` share at the start, as comparing them item by item from the first, each with `===`,
 * would count: the length of the nearest array both extend (or are), found through the recorded extensions, then
 * compared on from there. Undefined when no such array is recorded within reach (an array never extended nor
 * recorded as an extension has no lineage, even compared with itself; nor is any array made before the first call of
 * this function), where a caller compares them itself.
 */
export function sharedStart(a: readonly unknown[], b: readonly unknown[]): number | undefined {
  asked = true;
  let x = lineages.get(a);
  let y = lineages.get(b);
  while (x !== y) {
    if (x === undefined || y === undefined) return undefined;
    if (x.depth >= y.depth) x = x.parent;
    else y = y.parent;
  }
  if (x === undefined) return undefined;
  let start = x.length;
  const length = Math.min(a.length, b.length);
  while (start < length && a[start] === b[start]) start++;
  return start;
}
