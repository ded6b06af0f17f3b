/**
 * Abort signals of the invoke: the shared signal of invokes without one, and
 * the narrowed signal `next(context, { signal })` gives an inner chain.
 *
 * @packageDocumentation
 */

let neverAborting: AbortSignal | undefined;

/** Whether `value` can serve as a signal: an object with a boolean `aborted` and listener methods (any realm's AbortSignal). */
export function isAbortSignal(value: unknown): value is AbortSignal {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<AbortSignal>;
  return typeof candidate.aborted === 'boolean' && typeof candidate.addEventListener === 'function' && typeof candidate.removeEventListener === 'function';
}

/** One shared signal for invokes without one, so handlers can always read `run.signal`. */
export function neverSignal(): AbortSignal {
  if (neverAborting === undefined) neverAborting = new AbortController().signal;
  return neverAborting;
}

/**
 * A signal that aborts when either `outer` or `extra` does. Where listeners
 * had to be added, `onCleanup` receives the function that removes them; the
 * invoke calls it when it settles.
 */
export function narrowSignal(outer: AbortSignal, extra: AbortSignal, onCleanup: (cleanup: () => void) => void): AbortSignal {
  if (outer === neverAborting) return extra;
  // AbortSignal.any holds its sources weakly, so an invoke abandoned without
  // being closed leaves nothing behind on the caller's long-lived signal.
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([outer, extra]);
  const controller = new AbortController();
  if (outer.aborted) controller.abort(outer.reason);
  else if (extra.aborted) controller.abort(extra.reason);
  else {
    const fromOuter = (): void => controller.abort(outer.reason);
    const fromExtra = (): void => controller.abort(extra.reason);
    outer.addEventListener('abort', fromOuter, { once: true });
    extra.addEventListener('abort', fromExtra, { once: true });
    onCleanup(() => {
      outer.removeEventListener('abort', fromOuter);
      extra.removeEventListener('abort', fromExtra);
    });
  }
  return controller.signal;
}
