/**
 * How a run follows the caller's signal: the caller's `options.signal`
 * aborts the run's own controller (which `agent.cancel()` aborts too).
 */
import type { OwnedAbortController } from '../../core/internal';
import type { RunSettings } from './agent-options';
import { invalid } from '../errors';
import { thrownText } from '../values/value-walk';

/**
 * Makes the caller's signal abort the run's controller; returns what undoes it.
 * The signal was checked by `readRunOptions`; a fake one that still throws
 * here fails the run before it starts, and one that throws when unlinked is left linked.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when the signal's `addEventListener` throws.
 */
export function linkCallerSignal(settings: RunSettings, controller: OwnedAbortController): () => void {
  const outer = settings.signal;
  if (outer === undefined) return doNothing;
  const forward = (): void => {
    controller.abort(reasonOf(outer));
  };
  if (settings.aborted) {
    forward();
    return doNothing;
  }
  try {
    outer.addEventListener('abort', forward, { once: true });
  } catch (error) {
    throw invalid(`options.signal.addEventListener() threw: ${thrownText(error)}; options.signal must be an AbortSignal`, error);
  }
  return () => {
    try {
      outer.removeEventListener('abort', forward);
    } catch {
      // Nothing to undo on a signal that cannot remove its listener: forwarding to a finished run does nothing.
    }
  };
}

/** The abort reason of the caller's signal, or undefined (the default reason) when it cannot be read. */
function reasonOf(signal: AbortSignal): unknown {
  try {
    return signal.reason;
  } catch {
    return undefined;
  }
}

function doNothing(): void {
  // Nothing was linked, so there is nothing to unlink.
}
