/**
 * `MiddlewareRegistry`, the core's public class: each method checks what it
 * was given and hands the change to the registry's scope (`scope.ts`), the
 * chain to the cache of resolution (`resolve.ts`) and the run to an `Invocation`.
 *
 * @packageDocumentation
 */
import type { Instrumentation } from './instrumentation';
import { Invocation } from './invocation';
import { checkInvoke, NO_INVOKE_OPTIONS } from './invoke-options';
import type { DeepReadonly } from './deep-readonly';
import type {
  AddOptions,
  AnyStage,
  Disposer,
  HandlerOf,
  InvokeOptions,
  MiddlewareStage,
  Target,
  Terminal,
  TerminalArgument,
} from './types';
import { useBundle, type Middleware } from './bundle';
import type { ChainEntry } from './chain';
import { checkKey, type Contribution, type ContributionKey } from './contributions';
import { explainStage } from './explain';
import { createRegistration, resolveTarget, stageOf } from './registration';
import { ChainCache } from './resolve';
import { warnOnConsole, type MiddlewareWarning } from './warnings';
import { RegistryScope } from './scope';

/** Options of {@link MiddlewareRegistry}. */
export interface RegistryOptions {
  /** Receives warnings (an ordering constraint naming an unknown id). Default: `console.warn`. */
  readonly onWarning?: (warning: MiddlewareWarning) => void;
}

/**
 * Holds handlers per stage and runs them around a framework's terminal.
 *
 * @example
 * ```ts
 * const registry = new MiddlewareRegistry();
 * registry.add(ModelStage.Wrap, async function* logged(context, next) {
 *   console.log('calling the model');
 *   yield* next();
 * });
 * const result = await registry.run(ModelStage, context, callModel);
 * ```
 */
export class MiddlewareRegistry {
  /** What this registry holds; `child()` gives a new registry, once, a scope under this one's. */
  #scope = new RegistryScope(undefined);
  readonly #chains: ChainCache;
  readonly #options: RegistryOptions;

  /** Creates an empty registry. */
  constructor(options: RegistryOptions = {}) {
    this.#options = options;
    this.#chains = new ChainCache(options.onWarning ?? warnOnConsole);
  }

  /**
   * Registers a handler. The target decides the phase (a bare stage means
   * Wrap) and the handler's type.
   *
   * @returns A disposer that removes exactly this registration (calling it twice is harmless).
   * @throws MiddlewareError `ERR_UNKNOWN_PHASE`, `ERR_INVALID_HANDLER`, `ERR_INVALID_OPTIONS`,
   *   `ERR_DUPLICATE_ID` or `ERR_ORDER_CYCLE`; nothing is registered then.
   */
  add<TTarget extends Target>(target: TTarget, handler: HandlerOf<TTarget>, options?: AddOptions): Disposer {
    return this.#scope.register(createRegistration(target, handler, options, undefined, 'registry.add'), 'registry.add');
  }

  /**
   * Removes a registration: by id, or the first registration of `handler` on `target`.
   *
   * @returns Whether something was removed.
   * @throws MiddlewareError `ERR_UNKNOWN_PHASE` when `target` is not a stage or phase token.
   */
  remove(id: string): boolean;
  /** Removes the first registration of `handler` on `target`; see the overload above. */
  remove<TTarget extends Target>(target: TTarget, handler: HandlerOf<TTarget>): boolean;
  remove(targetOrId: unknown, handler?: unknown): boolean {
    if (typeof targetOrId === 'string') return this.#scope.removeId(targetOrId);
    const { stage, phase } = resolveTarget(targetOrId, 'registry.remove');
    return this.#scope.removeFirst(stage, phase, handler);
  }

  /**
   * Registers a bundle. If `setup` throws, whatever it registered is removed
   * again and the error passes through.
   *
   * @returns One disposer for the whole bundle.
   * @throws MiddlewareError `ERR_INVALID_HANDLER` when `middleware` is not `{ name, setup }`, or any
   *   code of {@link MiddlewareRegistry.add} raised by `setup`; errors `setup` throws pass through unchanged.
   *
   * @example
   * ```ts
   * registry.use({
   *   name: 'audit',
   *   setup(registrar) {
   *     registrar.add(ModelStage.Input, function stamp(context) { return { ...context, at: Date.now() }; });
   *   },
   * });
   * ```
   */
  use(middleware: Middleware): Disposer {
    return useBundle(middleware, (bundle, kept) => this.#scope.registrar(bundle, kept));
  }

  /**
   * Adds an instrumentation that observes every invoke of every stage
   * (child registries included).
   *
   * @returns A disposer.
   * @throws MiddlewareError `ERR_INVALID_HANDLER` when `instrumentation` has no `invoke` function.
   *
   * @example
   * ```ts
   * registry.instrument({
   *   name: 'timeline',
   *   invoke: (info) => ({ end: (outcome) => console.log(info.stage.name, outcome.status) }),
   * });
   * ```
   */
  instrument(instrumentation: Instrumentation): Disposer {
    return this.#scope.instrument(instrumentation);
  }

  /**
   * The values bundles provided under `key` in this registry's scope: the
   * root registry's first, then each child's down to this one, each
   * registry's in the order they were provided (frozen).
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `key` is not a contribution key; `ERR_DUPLICATE_ID` when an
   *   ancestor provided, after this registry did, a value with an id this registry's scope already has.
   *
   * @example
   * ```ts
   * const Plugins = createContributionKey<{ readonly name: string }>('my-framework.plugins');
   * const plugins = registry.contributions(Plugins).map((contribution) => contribution.value);
   * ```
   */
  contributions<TValue>(key: ContributionKey<TValue>): readonly Contribution<TValue>[] {
    const { name } = checkKey(key, 'registry.contributions(key)');
    return this.#scope.contributions(name) as readonly Contribution<TValue>[];
  }

  /**
   * A child registry: it sees the parent's handlers live (added later
   * included) and runs its own inside them.
   */
  child(): MiddlewareRegistry {
    const child = new MiddlewareRegistry(this.#options);
    child.#scope = new RegistryScope(this.#scope);
    return child;
  }

  /**
   * The resolved chain of a stage as data, in execution-nesting order: Input
   * handlers, then Output, then Wrap, outermost first.
   *
   * @throws MiddlewareError `ERR_UNKNOWN_PHASE` when `stage` is not a stage; `ERR_ORDER_CYCLE`,
   *   `ERR_ORDER_CONFLICT` or `ERR_DUPLICATE_ID` when the chain cannot be resolved; `ERR_INVALID_OPTIONS` for a bad `use`.
   */
  describe(stage: AnyStage, options: Pick<InvokeOptions, 'use'> = {}): ChainEntry[] {
    const checked = stageOf(stage, 'registry.describe');
    const chain = this.#chains.resolve(this.#scope, checked, options.use, this.#chains.entryOf(checked));
    return [...chain.input, ...chain.output, ...chain.wrap].map(({ handler: _handler, ...entry }) => Object.freeze(entry));
  }

  /**
   * The resolved chain of a stage as a short text picture of the onion, outermost first.
   *
   * @throws See {@link MiddlewareRegistry.describe}.
   */
  explain(stage: AnyStage, options: Pick<InvokeOptions, 'use'> = {}): string {
    // describe() first: it rejects a value that is not a stage before its name is read.
    const entries = this.describe(stage, options);
    const provided = this.#scope
      .keysShownWith(stage)
      .map((name) => [name, this.contributions({ name, identify: undefined, stage })] as const);
    return explainStage(stage.name, entries, provided);
  }

  /**
   * Runs a stage: Input handlers, the Wrap onion around `terminal`, Output
   * handlers. Yields every event; the last is the (Output-transformed) result.
   * The handlers are those registered when `invoke` is called. Events are
   * typed as the stage's events, as they came; only the last, and only after
   * an Output phase, is frozen (MW-038), so do not write to the result
   * (`run` types it {@link DeepReadonly}).
   *
   * @throws MiddlewareError at the call: `ERR_UNKNOWN_PHASE`, `ERR_INVALID_HANDLER` (terminal not a
   *   function), `ERR_INVALID_OPTIONS`, or `ERR_ORDER_CYCLE`, `ERR_ORDER_CONFLICT`, `ERR_DUPLICATE_ID` when the
   *   chain cannot be resolved. While iterating, the contract errors of SPEC.md: `ERR_INPUT_CONTRACT`,
   *   `ERR_OUTPUT_CONTRACT`, `ERR_INVALID_HANDLER`, `ERR_INVALID_EVENT`, `ERR_NO_RESULT`, `ERR_ABORTED`,
   *   `ERR_NEXT_POLICY`, `ERR_NEXT_AFTER_SETTLE`, `ERR_CONTEXT_INVALID`, `ERR_RESULT_INVALID`, `ERR_INVALID_STATE`.
   *   Errors of handlers and the terminal pass through unchanged.
   *
   * @example
   * ```ts
   * for await (const event of registry.invoke(ModelStage, context, callModel, { signal })) render(event);
   * ```
   */
  invoke<TContext, TResult extends TEvent, TEvent, TState = unknown, TTerminal = Terminal<TContext, TEvent, TState>>(
    stage: MiddlewareStage<TContext, TResult, TEvent>,
    context: NoInfer<TContext>,
    terminal: TerminalArgument<TTerminal, TContext, TEvent, TState>,
    options: InvokeOptions<TState> = NO_INVOKE_OPTIONS as InvokeOptions<TState>,
  ): AsyncGenerator<TEvent, void, undefined> {
    // A stage the cache holds is a genuine one, so its entry spares the stage check a lookup of its own.
    const entry = this.#chains.entryOf(stage);
    checkInvoke(stage, terminal, options, entry !== undefined);
    const chain = this.#chains.resolve(this.#scope, stage, options.use, entry);
    return new Invocation<TEvent>(chain, context, terminal as unknown as Terminal<unknown, unknown>, options);
  }

  /**
   * Runs a stage to the end and returns its result. The result is typed
   * {@link DeepReadonly}: when an Output handler ran, it is the value the
   * Output phase took over and froze (MW-038), so writing to it would throw;
   * whether one runs depends on what is registered, not on the caller, so
   * copy a part you want to change.
   *
   * @throws See {@link MiddlewareRegistry.invoke}.
   *
   * @example
   * ```ts
   * const reply = await registry.run(ModelStage, context, callModel);
   * ```
   */
  async run<TContext, TResult extends TEvent, TEvent, TState = unknown, TTerminal = Terminal<TContext, TEvent, TState>>(
    stage: MiddlewareStage<TContext, TResult, TEvent>,
    context: NoInfer<TContext>,
    terminal: TerminalArgument<TTerminal, TContext, TEvent, TState>,
    options: InvokeOptions<TState> = NO_INVOKE_OPTIONS as InvokeOptions<TState>,
  ): Promise<DeepReadonly<TResult>> {
    const events = this.invoke<TContext, TResult, TEvent, TState, TTerminal>(stage, context, terminal, options);
    let last: TEvent | undefined;
    for (let pulled = await events.next(); pulled.done !== true; pulled = await events.next()) last = pulled.value;
    return last as DeepReadonly<TResult>;
  }
}
