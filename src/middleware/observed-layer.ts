/**
 * What `logging` and `tracing` have in common: they forward a layer's events
 * unchanged and report how the layer ended. Exactly one of `completed`,
 * `failed` or `closed` reports each entry, then `settled` runs.
 */

/** Callbacks of {@link observeLayer}; each receives the number of events the layer yielded so far. */
export interface LayerHooks {
  /** Runs each call into the layer (a pull, or the forwarded close): a place to time it. Default: calls it. */
  readonly call?: <T>(into: () => Promise<T>) => Promise<T>;
  /** The layer completed. A throw here is reported through `failed`, as if the layer threw it. */
  readonly completed?: (events: number) => void;
  /** The layer threw, while pulled or while its close was forwarded. */
  readonly failed: (error: unknown, events: number) => void;
  /** The consumer closed the layer at a yield; runs before the close is forwarded. */
  readonly closing?: () => void;
  /** The forwarded close finished without an error. */
  readonly closed?: (events: number) => void;
  /** Runs last, however the entry ended. */
  readonly settled?: (events: number) => void;
}

/** The default `call`: no timing. */
const direct = <T>(into: () => Promise<T>): Promise<T> => into();

/**
 * Forwards `events` and reports its end through the hooks `open` returns.
 * `open` runs at the first pull, when the layer is entered, so start times and
 * spans begin there. Why pull by hand rather than `yield*`: a close at a yield
 * must be told apart from the layer completing, and `yield*` forwards the close without a trace.
 */
export async function* observeLayer(
  events: AsyncGenerator<unknown, void, undefined>,
  open: () => LayerHooks,
): AsyncGenerator<unknown, void, undefined> {
  const hooks = open();
  const call = hooks.call ?? direct;
  let count = 0;
  let finished = false;
  try {
    for (;;) {
      const pulled = await call(() => events.next());
      if (pulled.done === true) break;
      count++;
      yield pulled.value;
    }
    finished = true;
    hooks.completed?.(count);
  } catch (error) {
    finished = true;
    hooks.failed(error, count);
    throw error;
  } finally {
    try {
      // Reached without `finished` only when the consumer closed this layer at a yield: forward the close.
      if (!finished) {
        hooks.closing?.();
        try {
          await call(() => events.return(undefined));
        } catch (error) {
          hooks.failed(error, count);
          // eslint-disable-next-line no-unsafe-finally -- the inner layer failed to close: that failure, not the consumer's close, is this layer's outcome
          throw error;
        }
        hooks.closed?.(count);
      }
    } finally {
      hooks.settled?.(count);
    }
  }
}
