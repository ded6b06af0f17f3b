/**
 * Which layers the invoke may pull with its per-event shortcut: those whose
 * `next()` returns a native promise and never throws synchronously, so a
 * `.then` on what it returns needs no guard.
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
