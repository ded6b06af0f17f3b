/**
 * What counts as an abort signal wherever the library takes one from a
 * caller: any object with a boolean `aborted` and listener methods, so that
 * a signal of another realm (an iframe, a worker's polyfill) works too.
 *
 * @packageDocumentation
 */
import { isObject } from './is-object';

/** The members of a signal the library reads, in the order it reads them. */
export const SIGNAL_MEMBERS = ['aborted', 'addEventListener', 'removeEventListener'] as const;

/** A signal's members as read from a caller's value (read once each, by a caller that guards the reads). */
export type SignalMembers = Readonly<Partial<Record<(typeof SIGNAL_MEMBERS)[number], unknown>>>;

/** Whether the members read from a value are those of an AbortSignal: a boolean `aborted` and two listener methods. */
export function hasSignalMembers(members: SignalMembers): boolean {
  return (
    typeof members.aborted === 'boolean' &&
    typeof members.addEventListener === 'function' &&
    typeof members.removeEventListener === 'function'
  );
}

/** Whether `value` can serve as a signal (see {@link hasSignalMembers}). */
export function isAbortSignal(value: unknown): value is AbortSignal {
  return isObject(value) && hasSignalMembers(value);
}
