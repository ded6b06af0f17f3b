import { useBundle, type Middleware } from './bundle';
import type { ChainEntry, ResolvedChain } from './chain';
import { holdsSameRegistrations, sourcesOf, type CachedChain } from './chain-cache';
import { checkKey, createContribution, duplicated, type Contribution, type ContributionKey, type StoredContribution } from './contribution';
import { explainChain, explainContributions } from './explain';
import type { Instrumentation } from '../invoke/instrumentation';
import { Invocation } from '../invoke/invocation';
import type { DeepReadonly } from '../stage/deep-readonly';
import * as messages from '../errors/messages';
import { checkInvokeOptions, perInvokeRegistrations } from '../invoke/options';
import { sortByConstraints } from './order';
import { ConstraintIndex } from './constraint-index';
import { createRegistration, culpritOf, resolveTarget, stageOf, takePlace, tick, type StoredRegistration } from './registration';
import { resolveContributions, resolveScopes, type MiddlewareWarning, type Scope } from './resolve';
import type {
  AddOptions,
  AnyStage,
  Disposer,
  HandlerOf,
  InvokeOptions,
  MiddlewareStage,
  Registration,
  Target,
  Terminal,
  TerminalArgument,
} from '../stage/types';
import { isObject } from '../util/is-object';

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
  private parent: MiddlewareRegistry | undefined;
  private readonly byStage = new Map<AnyStage, Set<StoredRegistration>>();
  private readonly ids = new Map<string, StoredRegistration>();
  /** The ordering constraints of this registry's registrations, for the cycle check of `add`. */
  private readonly constraints = new ConstraintIndex();
  private readonly instrumentations = new Set<Instrumentation>();
  /** Contributions by key name, each set in the order they were provided. */
  private readonly provided = new Map<string, Set<StoredContribution>>();
  private readonly contributionCache = new Map<string, { version: number; entries: readonly Contribution<unknown>[] }>();
  /** Stamped by every change. */
  private version = tick();
  /** Stamped by the changes that can change the chain of any stage: ids coming or going, instrumentations. */
  private structure = this.version;
  private readonly cache = new WeakMap<AnyStage, CachedChain>();
  private readonly onWarning: (warning: MiddlewareWarning) => void;
  /** What resolution reads of this registry. */
  private readonly scope: Scope = {
    byStage: this.byStage,
    ids: this.ids,
    instrumentations: this.instrumentations,
    provided: this.provided,
  };
  /** This registry's scope and its ancestors', root first (a registry's ancestry never changes). */
  private scopeChain: readonly Scope[] = [this.scope];

  /** Creates an empty registry. */
  constructor(private readonly options: RegistryOptions = {}) {
    this.onWarning =
      options.onWarning ??
      ((warning) => {
        console.warn(`[staged-middleware] ${warning.code}: ${warning.message}`);
      });
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
    return this.register(createRegistration(target, handler, options, undefined, 'registry.add'), 'registry.add');
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
    if (typeof targetOrId === 'string') {
      const registration = this.ids.get(targetOrId);
      return registration !== undefined && this.unregister(registration);
    }
    const { stage, phase } = resolveTarget(targetOrId, 'registry.remove');
    let first: StoredRegistration | undefined;
    for (const registration of this.byStage.get(stage) ?? []) {
      if (registration.phase === phase && registration.handler === handler && (first === undefined || registration.seq < first.seq))
        first = registration;
    }
    return first !== undefined && this.unregister(first);
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
    return useBundle(middleware, (bundle) => {
      const where = `bundle "${bundle}"`;
      return {
        add: (target, handler, options) => this.register(createRegistration(target, handler, options, bundle, where), where),
        instrument: (instrumentation) => this.instrument(instrumentation),
        provide: (key, value) => this.addContribution(createContribution(key, value, bundle)),
      };
    });
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
    if (!isObject(instrumentation) || typeof instrumentation.invoke !== 'function') {
      throw messages.notAnInstrumentation(instrumentation);
    }
    this.instrumentations.add(instrumentation);
    this.changed(true);
    return () => {
      if (this.instrumentations.delete(instrumentation)) this.changed(true);
    };
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
    const version = this.effectiveVersion();
    const cached = this.contributionCache.get(name);
    if (cached?.version === version) return cached.entries as readonly Contribution<TValue>[];
    const entries = resolveContributions(name, this.scopeChain);
    this.contributionCache.set(name, { version, entries });
    return entries as readonly Contribution<TValue>[];
  }

  /**
   * A child registry: it sees the parent's handlers live (added later
   * included) and runs its own inside them.
   */
  child(): MiddlewareRegistry {
    const child = new MiddlewareRegistry(this.options);
    child.parent = this;
    child.scopeChain = [...this.scopeChain, child.scope];
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
    const chain = this.resolve(stageOf(stage, 'registry.describe'), options.use);
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
    const lines = [explainChain(stage.name, entries)];
    for (const name of this.keysShownWith(stage)) {
      const provided = this.contributions({ name, identify: undefined, stage });
      if (provided.length > 0) lines.push(...explainContributions(name, provided));
    }
    return lines.join('\n');
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
    options: InvokeOptions<TState> = {},
  ): AsyncGenerator<TEvent, void, undefined> {
    stageOf(stage, 'registry.invoke');
    if (typeof terminal !== 'function')
      throw messages.notAFunction({ stage: stage.name, phase: 'terminal', handler: 'terminal' }, terminal);
    checkInvokeOptions(stage.name, options);
    const chain = this.resolve(stage, options.use);
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
    options: InvokeOptions<TState> = {},
  ): Promise<DeepReadonly<TResult>> {
    const events = this.invoke<TContext, TResult, TEvent, TState, TTerminal>(stage, context, terminal, options);
    let last: TEvent | undefined;
    for (;;) {
      const pulled = await events.next();
      if (pulled.done === true) return last as DeepReadonly<TResult>;
      last = pulled.value;
    }
  }

  private register(registration: StoredRegistration, where: string): Disposer {
    let stored = registration;
    const existing = registration.id === undefined ? undefined : this.ids.get(registration.id);
    if (existing !== undefined) {
      if (!registration.replace) throw messages.duplicateId(culpritOf(registration), registration.id, where);
      stored = takePlace(registration, existing);
    } else if (registration.id !== undefined && !registration.replace && this.parent?.hasId(registration.id)) {
      throw messages.duplicateId(culpritOf(registration), registration.id, where);
    }
    const set = this.byStage.get(stored.stage) ?? new Set<StoredRegistration>();
    // Reject a cycle before anything changes, so a failed add leaves no trace.
    if (this.constraints.closesCycle(stored, existing, (id) => this.ids.get(id))) {
      // Sorting the whole phase names the cycle exactly as resolution would (MW-042).
      const samePhase = [...set].filter((other) => other.phase === stored.phase && other !== existing);
      sortByConstraints([...samePhase, stored], { stage: stored.stage.name, phase: stored.phase });
    }
    if (existing !== undefined) this.unregister(existing);
    set.add(stored);
    this.byStage.set(stored.stage, set);
    this.constraints.add(stored);
    if (stored.id !== undefined) this.ids.set(stored.id, stored);
    this.changed(stored.id !== undefined);
    return () => {
      this.unregister(stored);
    };
  }

  private addContribution(contribution: StoredContribution): Disposer {
    const { key, id } = contribution;
    const set = this.provided.get(key.name) ?? new Set<StoredContribution>();
    if (id !== undefined) {
      for (const existing of set) if (existing.id === id) throw duplicated(contribution, existing, false);
      const inherited = this.parent?.providedWithId(key.name, id);
      if (inherited !== undefined) throw duplicated(contribution, inherited, true);
    }
    set.add(contribution);
    this.provided.set(key.name, set);
    this.version = tick();
    return () => {
      if (!set.delete(contribution)) return;
      if (set.size === 0 && this.provided.get(key.name) === set) this.provided.delete(key.name);
      this.version = tick();
    };
  }

  private providedWithId(name: string, id: string): StoredContribution | undefined {
    for (const existing of this.provided.get(name) ?? []) if (existing.id === id) return existing;
    return this.parent?.providedWithId(name, id);
  }

  /** The names of the keys in scope whose `stage` is `stage`, sorted, for `explain()`. */
  private keysShownWith(stage: AnyStage): string[] {
    const names = new Set<string>();
    for (const scope of this.scopeChain) {
      for (const [name, set] of scope.provided) for (const contribution of set) if (contribution.key.stage === stage) names.add(name);
    }
    return [...names].sort();
  }

  private unregister(registration: StoredRegistration): boolean {
    const set = this.byStage.get(registration.stage);
    if (!set?.delete(registration)) return false;
    if (set.size === 0) this.byStage.delete(registration.stage);
    this.constraints.remove(registration);
    if (registration.id !== undefined && this.ids.get(registration.id) === registration) this.ids.delete(registration.id);
    this.changed(registration.id !== undefined);
    return true;
  }

  /** Stamps a change; `structural` when it may change the chain of other stages than the registration's own. */
  private changed(structural: boolean): void {
    this.version = tick();
    if (structural) this.structure = this.version;
  }

  private hasId(id: string): boolean {
    return this.ids.has(id) || (this.parent?.hasId(id) ?? false);
  }

  /** The newest change anywhere in this registry's ancestry; the clock only grows. */
  private effectiveVersion(): number {
    const parentVersion = this.parent === undefined ? 0 : this.parent.effectiveVersion();
    return parentVersion > this.version ? parentVersion : this.version;
  }

  /** The newest structural change anywhere in this registry's ancestry. */
  private effectiveStructure(): number {
    const parentStructure = this.parent === undefined ? 0 : this.parent.effectiveStructure();
    return parentStructure > this.structure ? parentStructure : this.structure;
  }

  /**
   * The chain of a stage, cached until this registry or an ancestor changes (a chain with per-invoke handlers is
   * not cached). After a change that was not structural, the cached chain still holds when every level has
   * exactly the registrations on the stage it was resolved from (`chain-cache.ts`).
   */
  private resolve(stage: AnyStage, use: readonly Registration[] | undefined): ResolvedChain {
    const perInvoke = use === undefined || use.length === 0 ? undefined : perInvokeRegistrations(stage, use);
    const version = this.effectiveVersion();
    const cached = perInvoke === undefined ? this.cache.get(stage) : undefined;
    if (cached !== undefined) {
      if (cached.version === version) return cached.chain;
      if (cached.structure === this.effectiveStructure() && holdsSameRegistrations(this.scopeChain, stage, cached.sources)) {
        cached.version = version;
        return cached.chain;
      }
    }
    const scopes = this.scopeChain;
    const chain = resolveScopes(stage, scopes, perInvoke ?? [], this.onWarning);
    if (perInvoke === undefined)
      this.cache.set(stage, { version, structure: this.effectiveStructure(), sources: sourcesOf(scopes, stage), chain });
    return chain;
  }
}
