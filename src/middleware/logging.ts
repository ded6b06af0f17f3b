import type { HandlerInfo, Instrumentation, InvokeInfo, InvokeObserver, LayerInfo } from '../core/index';
import { invalidOption } from './errors';
import { optionalFunction } from './options';
import { observeLayer } from './observed-layer';
import { systemTimers } from '../util/timers';
import { isObject } from '../util/is-object';

/** One structured log record. */
export interface LogRecord {
  /** What happened. */
  readonly event: 'invoke.start' | 'invoke.end' | 'layer.start' | 'layer.end' | 'layer.error' | 'handler.end' | 'handler.error';
  /** Stage name. */
  readonly stage: string;
  /** `'input'`, `'wrap'`, `'output'` or `'terminal'` (absent on invoke records). */
  readonly phase?: 'input' | 'wrap' | 'output' | 'terminal';
  /** Handler name (absent on invoke records). */
  readonly handler?: string;
  /** Position in its phase (layers: 0 is the outermost). */
  readonly position?: number;
  /** Entry number of a layer: 2 for a retry's second entry. */
  readonly attempt?: number;
  /** Events the layer yielded (layer.end / layer.error). */
  readonly events?: number;
  /** Time from the layer's first pull to its end, in ms (layer.end / layer.error). */
  readonly durationMs?: number;
  /** True when the consumer closed the layer before it ended (layer.end). */
  readonly closed?: boolean;
  /** How the invoke ended (invoke.end). */
  readonly status?: 'success' | 'error' | 'closed';
  /** The error (layer.error, handler.error, invoke.end with status error). */
  readonly error?: unknown;
}

/** Where records go: an object with `info` and `error`, or one function for both. */
export type Logger = { info(record: LogRecord): void; error(record: LogRecord): void } | ((record: LogRecord) => void);

/** Options of {@link logging}. */
export interface LoggingOptions {
  /** Receives the records. */
  readonly logger: Logger;
  /** Clock for `durationMs`. Default: `performance.now`. */
  readonly now?: () => number;
}

/**
 * Structured start / end / error records for every invoke, every entry into
 * a Wrap layer or the terminal, and every Input and Output handler, through
 * the instrumentation API (so it sees each layer, not one opaque `next()`).
 * Errors go to `logger.error`, everything else to `logger.info`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once without a usable logger.
 * @example
 * ```ts
 * registry.instrument(logging({ logger: (record) => console.log(JSON.stringify(record)) }));
 * ```
 */
export function logging(options: LoggingOptions): Instrumentation {
  const logger = (options as LoggingOptions | null | undefined)?.logger;
  let info: (record: LogRecord) => void;
  let error: (record: LogRecord) => void;
  if (typeof logger === 'function') {
    info = logger;
    error = logger;
  } else if (isObject(logger) && typeof logger.info === 'function' && typeof logger.error === 'function') {
    info = (record) => {
      logger.info(record);
    };
    error = (record) => {
      logger.error(record);
    };
  } else {
    throw invalidOption('logging', 'options.logger must be { info(record), error(record) } or a function', logger);
  }
  const now = optionalFunction('logging', 'now', options.now) ?? (() => systemTimers.now());
  return Object.freeze({ name: 'logging', invoke: (invoke: InvokeInfo) => observe(invoke, info, error, now) });
}

/** The observer of one invoke: its start is logged at once, the rest as it happens. */
function observe(
  invoke: InvokeInfo,
  info: (record: LogRecord) => void,
  error: (record: LogRecord) => void,
  now: () => number,
): InvokeObserver {
  const stage = invoke.stage.name;
  info({ event: 'invoke.start', stage });
  return {
    layer: (layer, events) => logLayer(layer, events, info, error, now),
    // Rest parameter: a handler may throw `undefined`, so the failure is told by the argument's presence.
    handlerEnd(handler: HandlerInfo, ...failure: unknown[]) {
      const record = { stage, phase: handler.phase, handler: handler.handler, position: handler.position };
      if (failure.length === 0) info({ event: 'handler.end', ...record });
      else error({ event: 'handler.error', ...record, error: failure[0] });
    },
    end(outcome) {
      if (outcome.status === 'error') error({ event: 'invoke.end', stage, status: 'error', error: outcome.error });
      else info({ event: 'invoke.end', stage, status: outcome.status });
    },
  };
}

/** Forwards one layer entry, logging its start and how it ended. */
function logLayer(
  layer: LayerInfo,
  events: AsyncGenerator<unknown, void, undefined>,
  info: (record: LogRecord) => void,
  error: (record: LogRecord) => void,
  now: () => number,
): AsyncGenerator<unknown, void, undefined> {
  return observeLayer(events, () => {
    const base = {
      stage: layer.stage.name,
      phase: layer.kind === 'terminal' ? ('terminal' as const) : ('wrap' as const),
      handler: layer.handler,
      position: layer.position,
      attempt: layer.attempt,
    };
    const started = now();
    info({ event: 'layer.start', ...base });
    return {
      completed: (count) => {
        info({ event: 'layer.end', ...base, events: count, durationMs: now() - started, closed: false });
      },
      failed: (thrown, count) => {
        error({ event: 'layer.error', ...base, events: count, durationMs: now() - started, error: thrown });
      },
      closed: (count) => {
        info({ event: 'layer.end', ...base, events: count, durationMs: now() - started, closed: true });
      },
    };
  });
}
