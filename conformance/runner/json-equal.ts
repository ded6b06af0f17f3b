/**
 * Deep equality of JSON-like values, as the runner compares what a case
 * expects with what was observed: arrays item by item, plain objects key by
 * key (a key whose value is undefined counts as absent, as in JSON), numbers
 * with `Object.is` except that 0 and -0 are equal.
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null)
    return Number.isNaN(left) && Number.isNaN(right);
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) {
    const other = right as unknown[];
    return left.length === other.length && left.every((item, index) => jsonEqual(item, other[index]));
  }
  const leftKeys = definedKeys(left);
  const rightKeys = definedKeys(right);
  return (
    leftKeys.length === rightKeys.length &&
    leftKeys.every(
      (key) => Object.hasOwn(right, key) && jsonEqual((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
    )
  );
}

/** The own enumerable keys whose value is not undefined. */
function definedKeys(value: object): string[] {
  return Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
}
