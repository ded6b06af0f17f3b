/**
 * Which layers the invoke may pull with its per-event shortcut: those whose
 * `next()` returns a native promise and never throws synchronously, so a
 * `.then` on what it returns needs no guard; and, for a native async
 * generator, the pull itself without reading its `next` again.
 *
 * @packageDocumentation
 */
import type { LayerGenerator } from '../layer';
import { SerialAsyncGenerator } from './serial-async-generator';

/**
 * `next` of every native async generator. A layer whose `next` is this one
 * returns a native promise and never throws synchronously, which is what
 * lets the invoke take its per-event shortcut.
 */
export const nativeNext = (
  Object.getPrototypeOf(
    Object.getPrototypeOf(
      (async function* probe() {
        // Empty: only the generator's prototype chain is read.
      })(),
    ),
  ) as { readonly next: unknown }
).next;

/** `next` of the hand-written iterators built on {@link SerialAsyncGenerator} (the invoke's own, the agent's terminals). */
const serialNext: unknown = (SerialAsyncGenerator.prototype as { readonly next: unknown }).next;

/**
 * Whether a layer's `next()` returns a native promise and never throws
 * synchronously: a native async generator, or a hand-written iterator of
 * ours built on {@link SerialAsyncGenerator}, whose pulls promise as much.
 */
export function hasNativeNext(layer: LayerGenerator): boolean {
  const next: unknown = (layer as { readonly next: unknown }).next;
  return next === nativeNext || next === serialNext;
}

/**
 * Whether a layer is an iterator of ours that promises natively, which an iterator of ours pulls with
 * `nextInto` (`serial-async-generator.ts`), so that the two answer in one promise reaction.
 */
export function isOwnIterator(layer: LayerGenerator): boolean {
  return layer instanceof SerialAsyncGenerator && hasNativeNext(layer);
}

/**
 * How the invoke pulls a layer ({@link pullKindOf}): `'native'`, a native async generator, with {@link pullNative}
 * and a bare `.then`; `'own'`, an iterator of ours that promises natively, with `nextInto`
 * (`serial-async-generator.ts`); `'guarded'`, any other shape, every pull guarded or awaited.
 */
export type PullKind = 'guarded' | 'native' | 'own';

/**
 * How to pull `layer`, from one read of its `next`, as a `for await` reads it once when the loop starts. Why not
 * {@link hasNativeNext} and {@link isOwnIterator}: every generator function has a prototype of its own, so in a process
 * with many terminals and handlers each read of `next` is a megamorphic lookup, and `instanceof` a walk of the
 * prototype chain; a native generator costs one read here and no walk.
 */
export function pullKindOf(layer: LayerGenerator): PullKind {
  const next: unknown = (layer as { readonly next: unknown }).next;
  if (next === nativeNext) return 'native';
  return next === serialNext && layer instanceof SerialAsyncGenerator ? 'own' : 'guarded';
}

/**
 * One pull of a layer whose `next` was the native one when the invoke took it (`'native'`): that function called
 * directly, as a `for await` calls the `next` it read when it started, so that no pull looks the method up again on
 * a receiver whose hidden class differs from one generator function to the next.
 */
export function pullNative(layer: LayerGenerator): Promise<IteratorResult<unknown, void>> {
  return (nativeNext as (this: LayerGenerator) => Promise<IteratorResult<unknown, void>>).call(layer);
}
