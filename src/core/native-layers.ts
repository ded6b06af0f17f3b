/**
 * Which layers the invoke may pull with its per-event shortcut: those whose
 * `next()` returns a native promise and never throws synchronously, so a
 * `.then` on what it returns needs no guard.
 *
 * @packageDocumentation
 */
import { nativeNext, type LayerGenerator } from './layer';
import { QueuedIterator } from './queued-iterator';

/** `next` of the hand-written iterators built on {@link QueuedIterator} (the invoke's own, the agent's terminals). */
const queuedNext: unknown = (QueuedIterator.prototype as { readonly next: unknown }).next;

/**
 * Whether a layer's `next()` returns a native promise and never throws
 * synchronously: a native async generator, or a hand-written iterator of
 * ours built on {@link QueuedIterator}, whose pulls promise as much.
 */
export function promisesNatively(layer: LayerGenerator): boolean {
  const next: unknown = (layer as { readonly next: unknown }).next;
  return next === nativeNext || next === queuedNext;
}

/**
 * Whether a layer is an iterator of ours that promises natively, which an iterator of ours pulls with
 * `nextThen` (`queued-iterator.ts`), so that the two answer in one promise reaction.
 */
export function pullsThrough(layer: LayerGenerator): boolean {
  return layer instanceof QueuedIterator && promisesNatively(layer);
}
