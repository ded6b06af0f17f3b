/**
 * Instances that live as long as the process, each keeping its class's
 * hidden class. Why: V8 holds the hidden classes of class instances only
 * weakly; when a full collection finds no live instance of a class it drops
 * them, and every function compiled against them is deoptimised ("weak
 * objects" in `node --trace-deopt`) until it warms up again, which a process
 * with allocation-heavy neighbours pays over and over (`gc_pressure` in
 * `bench/README.md`).
 *
 * @packageDocumentation
 */

/** The kept instances; never read: being reachable is their whole job. */
const kept: object[] = [];

/**
 * Keeps `instance` alive for good, so that its class's hidden class survives full collections. Call it from the
 * class's `static` block (which no bundler drops as unused) with an instance that never runs.
 */
export function keepHiddenClass(instance: object): void {
  kept.push(instance);
}
