import { invalidOption } from '../middleware/errors';
import { checkOptionsObject } from '../middleware/options';
import { handlerName } from '../core/internal';
import type { Instrumentation } from '../core/index';
import { type Middleware } from '../core/index';
import { mapRegistrar } from '../core/internal';
import { observeCall, observeWrap, type Erased, type HandlerCalls } from './handler-calls';
import { MiddlewareRegistry } from '../core/index';
import type { AddOptions, Registration } from '../core/index';
import type { DeepReadonly } from '../core/index';
import type { StateBinding, Terminal, TerminalArgument } from '../core/index';
import type { MiddlewareStage, Target } from '../core/index';
import { isObject } from '../util/is-object';
import { setOwnEntry } from '../util/own-entry';

/** Options of {@link runStage}. */
export interface RunStageOptions<TContext, TEvent, TState, TTerminal = Terminal<TContext, TEvent, TState>> {
  /** The terminal (a {@link scriptedTerminal}, say); its types come from the stage, so an inline one needs no annotation. */
  readonly terminal: TerminalArgument<TTerminal, TContext, TEvent, TState>;
  /** The context passed to the invoke. */
  readonly context: NoInfer<TContext>;
  /** Handlers to register, as `[target, handler, options?]` tuples (like `InvokeOptions.use`). */
  readonly handlers?: readonly Registration[];
  /** Bundles to register (`validate(stage, schemas)`, say); their handlers are observed too. */
  readonly use?: readonly Middleware[];
  /** Instrumentations to register (`tracing`, `logging`). */
  readonly instrument?: readonly Instrumentation[];
  /** The invoke's signal. */
  readonly signal?: AbortSignal;
  /** Initial state: when given, the invoke gets a state binding starting from it. */
  readonly state?: TState;
}

/** The outcome of {@link runStage}. */
export interface StageRun<TResult, TEvent, TState> {
  /** Every event delivered, the result last (when the invoke succeeded). */
  readonly events: TEvent[];
  /** The result, or undefined when the invoke failed; deeply frozen (MW-038), so typed read-only as `run()`'s value is. */
  readonly result: DeepReadonly<TResult> | undefined;
  /** The error the invoke ended with, or undefined. */
  readonly error: unknown;
  /** Per handler name (a repeated name gets `#2`, `#3`...): what it was called with and did. */
  readonly calls: Record<string, HandlerCalls>;
  /** The state after the invoke: the value written back, else the initial state. */
  readonly state: TState | undefined;
  /** How many times the state was written back (0 or 1). */
  readonly stateWrites: number;
}

/**
 * Runs a stage once in a fresh registry and reports what happened: events,
 * result or error, and for every handler how often it ran, what it passed to
 * `next()` and whether its `finally` ran. Never throws for errors of the
 * invoke: they are in `error`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `options` is not an object or `handlers`, `use` or `instrument` is not an array.
 * @example
 * ```ts
 * const run = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, retry()]] });
 * expect(run.calls.retry?.nextCalls).toBe(2);
 * ```
 */
export async function runStage<TContext, TResult extends TEvent, TEvent, TState = unknown, TTerminal = Terminal<TContext, TEvent, TState>>(
  stage: MiddlewareStage<TContext, TResult, TEvent>,
  options: RunStageOptions<TContext, TEvent, TState, TTerminal>,
): Promise<StageRun<TResult, TEvent, TState>> {
  checkOptionsObject('runStage', options, '{ terminal, context, handlers?, use?, instrument?, signal?, state? }');
  for (const key of ['handlers', 'use', 'instrument'] as const) {
    if (options[key] !== undefined && !Array.isArray(options[key]))
      throw invalidOption('runStage', `options.${key} must be an array`, options[key]);
  }
  const registry = new MiddlewareRegistry();
  const calls: Record<string, HandlerCalls> = {};
  /** The observing wrapper of a handler, and the options that register it under the handler's own name. */
  const observe = (target: Target, handler: unknown, addOptions: AddOptions | undefined): readonly [Erased, AddOptions | undefined] => {
    const phase = 'phase' in target ? target.phase : 'wrap';
    const base = handlerName(handler, phase, addOptions?.name);
    let name = base;
    for (let index = 2; Object.hasOwn(calls, name); index++) name = `${base}#${index}`;
    const record: HandlerCalls = { phase, activations: 0, received: [], nextCalls: 0, nextContexts: [], finallyRan: false };
    setOwnEntry(calls, name, record);
    // A non-function is registered as it is, so the registry reports it.
    if (typeof handler !== 'function') return [handler as Erased, addOptions];
    const original = handler as (...args: unknown[]) => unknown;
    const wrapper = phase === 'wrap' ? observeWrap(original, record) : observeCall(original, record, phase === 'output');
    return [wrapper, addOptions?.name === undefined ? { ...addOptions, name: base } : addOptions];
  };

  for (const registration of options.handlers ?? []) {
    const [target, handler, addOptions] = registration as readonly [Target, unknown, AddOptions?];
    const [observed, observedOptions] = observe(target, handler, addOptions);
    registry.add(target, observed as never, observedOptions);
  }
  for (const bundle of options.use ?? []) {
    // A malformed bundle is registered as it is, so the registry reports what was passed.
    if (!isObject(bundle) || typeof bundle.setup !== 'function') {
      registry.use(bundle);
      continue;
    }
    registry.use({
      name: bundle.name,
      setup: (registrar) => {
        bundle.setup(mapRegistrar(registrar, observe));
      },
    });
  }
  for (const instrumentation of options.instrument ?? []) registry.instrument(instrumentation);

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
    const invoke = registry.invoke<TContext, TResult, TEvent, TState, TTerminal>(stage, options.context, options.terminal, {
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
    result: failed ? undefined : (events[events.length - 1] as DeepReadonly<TResult> | undefined),
    error,
    calls,
    state,
    stateWrites,
  };
}
