import { checkOptionsObject, invalidOption } from '../middleware/failures';
import { MiddlewareRegistry, type Middleware, type Registrar } from '../registry';
import type { AddOptions, MiddlewareStage, Registration, StateBinding, Target, Terminal } from '../types';

/** What happened to one handler during {@link runStage}. */
export interface HandlerCalls {
  /** The handler's phase. */
  readonly phase: 'input' | 'wrap' | 'output';
  /** How many times it was called (Wrap: activations). */
  activations: number;
  /** What each call received: the context (Input, Wrap) or the result value (Output). */
  readonly received: unknown[];
  /** How many times it called `next()` (Wrap handlers), over all activations. */
  nextCalls: number;
  /** The context of each `next()` call, as the inner chain received it (`undefined` passes the handler's own context on). */
  readonly nextContexts: unknown[];
  /** Whether every activation has finished: its `finally` ran (Wrap) or it returned or threw (Input, Output). False when never called. */
  finallyRan: boolean;
}

/** Options of {@link runStage}. */
export interface RunStageOptions<TContext, TEvent, TState> {
  /** The terminal (a {@link scriptedTerminal}, say). */
  readonly terminal: Terminal<TContext, TEvent, TState>;
  /** The context passed to the invoke. */
  readonly context: TContext;
  /** Handlers to register, as `[target, handler, options?]` tuples (like `InvokeOptions.use`). */
  readonly handlers?: readonly Registration[];
  /** Bundles to register (`tracing`, `validate(...).on(stage)`); their handlers are observed too. */
  readonly use?: readonly Middleware[];
  /** The invoke's signal. */
  readonly signal?: AbortSignal;
  /** Initial state: when given, the invoke gets a state binding starting from it. */
  readonly state?: TState;
}

/** The outcome of {@link runStage}. */
export interface StageRun<TResult, TEvent, TState> {
  /** Every event delivered, the result last (when the invoke succeeded). */
  readonly events: TEvent[];
  /** The result, or undefined when the invoke failed. */
  readonly result: TResult | undefined;
  /** The error the invoke ended with, or undefined. */
  readonly error: unknown;
  /** Per handler name (a repeated name gets `#2`, `#3`...): what it was called with and did. */
  readonly calls: Record<string, HandlerCalls>;
  /** The state after the invoke: the value written back, else the initial state. */
  readonly state: TState | undefined;
  /** How many times the state was written back (0 or 1). */
  readonly stateWrites: number;
}

/** A handler with its types erased, as the observing wrappers register it. */
type Erased = (...args: never[]) => unknown;

/**
 * Runs a stage once in a fresh registry and reports what happened: events,
 * result or error, and for every handler how often it ran, what it passed to
 * `next()` and whether its `finally` ran. Never throws for errors of the
 * invoke: they are in `error`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `options` is not an object or `handlers` / `use` is not an array.
 * @example
 * ```ts
 * const run = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, retry()]] });
 * expect(run.calls.retry?.nextCalls).toBe(2);
 * ```
 */
export async function runStage<TContext, TResult extends TEvent, TEvent, TState = unknown>(
  stage: MiddlewareStage<TContext, TResult, TEvent>,
  options: RunStageOptions<TContext, TEvent, TState>,
): Promise<StageRun<TResult, TEvent, TState>> {
  checkOptionsObject('runStage', options, '{ terminal, context, handlers?, use?, signal?, state? }');
  for (const key of ['handlers', 'use'] as const) {
    if (options[key] !== undefined && !Array.isArray(options[key])) throw invalidOption('runStage', `options.${key} must be an array`, options[key]);
  }
  const registry = new MiddlewareRegistry();
  const calls: Record<string, HandlerCalls> = {};
  const observe = (target: Target, handler: unknown, addOptions: AddOptions | undefined): Erased => {
    const phase = 'phase' in target ? (target.phase as HandlerCalls['phase']) : 'wrap';
    const base = addOptions?.name ?? (typeof handler === 'function' && handler.name.length > 0 ? handler.name : `anonymous ${phase} handler`);
    let name = base;
    for (let index = 2; name in calls; index++) name = `${base}#${index}`;
    const record: HandlerCalls = { phase, activations: 0, received: [], nextCalls: 0, nextContexts: [], finallyRan: false };
    calls[name] = record;
    // A non-function is registered as it is, so the registry reports it.
    if (typeof handler !== 'function') return handler as Erased;
    const original = handler as (...args: unknown[]) => unknown;
    return phase === 'wrap' ? observeWrap(original, record) : observeCall(original, record, phase === 'output');
  };
  const withName = (handler: unknown, addOptions: AddOptions | undefined): AddOptions | undefined =>
    addOptions?.name !== undefined || typeof handler !== 'function' || handler.name.length === 0 ? addOptions : { ...addOptions, name: handler.name };

  for (const registration of options.handlers ?? []) {
    const [target, handler, addOptions] = registration as readonly [Target, unknown, AddOptions?];
    registry.add(target, observe(target, handler, addOptions) as never, withName(handler, addOptions));
  }
  for (const bundle of options.use ?? []) {
    // A malformed bundle is registered as it is, so the registry reports what was passed.
    if (bundle === null || typeof bundle !== 'object' || typeof bundle.setup !== 'function') {
      registry.use(bundle);
      continue;
    }
    registry.use({
      name: bundle.name,
      setup: (registrar: Registrar) =>
        bundle.setup({
          add: (target, handler, addOptions) => registrar.add(target, observe(target, handler, addOptions) as never, withName(handler, addOptions)),
          instrument: (instrumentation) => registrar.instrument(instrumentation),
          provide: (key, value) => registrar.provide(key, value),
        }),
    });
  }

  let state = options.state;
  let stateWrites = 0;
  const binding: StateBinding<TState> | undefined =
    'state' in options
      ? {
          get: () => state as TState,
          set: (next) => {
            state = next;
            stateWrites++;
          },
        }
      : undefined;
  const events: TEvent[] = [];
  let error: unknown;
  let failed = false;
  try {
    const invoke = registry.invoke(stage, options.context, options.terminal, {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(binding === undefined ? {} : { state: binding }),
    });
    for await (const event of invoke) events.push(event);
  } catch (thrown) {
    failed = true;
    error = thrown;
  }
  return {
    events,
    result: failed ? undefined : (events[events.length - 1] as TResult | undefined),
    error,
    calls,
    state,
    stateWrites,
  };
}

/** Wraps an Input or Output handler to count its calls and record what it received. */
function observeCall(original: (...args: unknown[]) => unknown, record: HandlerCalls, isOutput: boolean): Erased {
  let settled = 0;
  const done = (): void => {
    settled++;
    record.finallyRan = settled === record.activations;
  };
  return function observed(value: unknown): unknown {
    record.activations++;
    record.finallyRan = false;
    record.received.push(isOutput ? (value as { value: unknown }).value : value);
    let produced: unknown;
    try {
      produced = original(value);
    } catch (error) {
      done();
      throw error;
    }
    if (produced !== null && typeof produced === 'object' && typeof (produced as { then?: unknown }).then === 'function') {
      return Promise.resolve(produced).finally(done);
    }
    done();
    return produced;
  };
}

/** Wraps a Wrap handler to count activations and `next()` calls and to see its `finally` run. */
function observeWrap(original: (...args: unknown[]) => unknown, record: HandlerCalls): Erased {
  let settled = 0;
  return function observed(context: unknown, next: (context?: unknown, options?: unknown) => unknown, run: unknown): unknown {
    record.activations++;
    record.finallyRan = false;
    record.received.push(context);
    const countingNext = (nextContext?: unknown, nextOptions?: unknown): unknown => {
      record.nextCalls++;
      record.nextContexts.push(nextContext);
      return nextOptions === undefined ? next(nextContext) : next(nextContext, nextOptions);
    };
    const produced = original(context, countingNext, run);
    // Anything but an async iterable goes back as it is, so the registry reports it.
    if (produced === null || typeof produced !== 'object' || typeof (produced as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') return produced;
    return (async function* finallyProbe() {
      try {
        yield* produced as AsyncIterable<unknown>;
      } finally {
        settled++;
        record.finallyRan = settled === record.activations;
      }
    })();
  };
}
