/**
 * The chain primitives of the protocol, answered with this library: one
 * session per chain case, created by `chain.begin` and driven request by
 * request. This is what a port writes in its own language (spec/README.md,
 * "The protocol"); the runner does the rest.
 */
import {
  createContributionKey,
  createStage,
  MiddlewareRegistry,
  type AnyStage,
  type ContributionKey,
  type Disposer,
  type MiddlewareWarning,
  type Registration,
} from '../../index';
import type { Json } from '../cases/chain-case';
import type { ErrorReport, ReplyOf, RequestOf } from '../protocol/messages';
import { builtin } from './builtins';
import { asJson, deeplyFrozen, initialState, makeStage, observer, reportError } from './chain-values';
import { inputHandler, outputHandler, terminal } from './handler-scripts';
import { errorText, isResultEvent, type Environment } from './script-environment';
import { wrapHandler } from './wrap-script';

type Registrant = Omit<RequestOf<'chain.add'>, 'op' | 'scope' | 'label'>;

/** A registration kept under a label. */
interface Labelled {
  /** What `add` or `use` returned. */
  readonly dispose: Disposer;
  /** The target it was registered on (an add). */
  readonly target?: unknown;
  /** The function registered (an add). */
  readonly handler?: unknown;
  /** The registry it was added to (an add). */
  readonly scope?: 'parent' | 'child';
}

/** What every reply of a session may carry. */
interface Traced {
  /** The trace lines recorded since the previous reply. */
  trace?: string[];
}

/** One chain case on the library side of the protocol. */
export class ChainSession {
  private readonly environment: Environment = {
    trace: [],
    userErrors: new Set(),
    controller: undefined,
    locals: new Map(),
    keptNexts: [],
    bindingSet: undefined,
  };
  private readonly warnings: MiddlewareWarning[] = [];
  private readonly parent = new MiddlewareRegistry({ onWarning: (warning) => this.warnings.push(warning) });
  private readonly child = this.parent.child();
  private readonly stages = new Map<string | undefined, AnyStage>();
  private readonly labels = new Map<string, Labelled>();
  private readonly keys = new Map<string, ContributionKey<unknown>>();
  private readonly use: Registration[] = [];
  private readonly stateWrites: unknown[] = [];
  private stateGets = 0;
  private snapshot: unknown;
  private state: { get: () => unknown; set: (value: unknown) => void } | undefined;
  private invalidSignal = false;
  private iterator: AsyncGenerator<unknown, void, undefined> | undefined;
  private sent = 0;

  /** Creates the stages, the signal and the state binding of a case (`chain.begin`). */
  begin(request: RequestOf<'chain.begin'>): ReplyOf<'chain.begin'> {
    this.invalidSignal = request.signal?.invalid === true;
    if (request.signal !== undefined && !this.invalidSignal) {
      this.environment.controller = new AbortController();
      if (request.signal.abortBefore !== undefined)
        this.environment.controller.abort(abortReason(request.signal.abortBefore, request.signal.reasonKind));
    }
    if (request.state !== undefined) this.bindState(request.state);
    try {
      const stage = makeStage(request.stage);
      this.stages.set(undefined, stage);
      for (const name of request.otherStages ?? [])
        this.stages.set(name, createStage(name, request.stage.guard === true ? { isResult: isResultEvent } : {}));
      const phases = [stage.Input, stage.Wrap, stage.Output];
      const stageFrozen =
        Object.isFrozen(stage) &&
        phases.every((token) => Object.isFrozen(token) && token.stage === stage) &&
        phases.map((token) => token.phase).join() === 'input,wrap,output';
      return this.traced({ stageFrozen });
    } catch (error) {
      return this.failed(error);
    }
  }

  /** `registry.add`, or a per-invoke registration (`chain.add`). */
  add(request: RequestOf<'chain.add'>): ReplyOf<'chain.add'> {
    const target = this.targetOf(request);
    const handler = this.handlerOf(request);
    if (request.scope === 'invoke') {
      this.use.push((request.options === undefined ? [target, handler] : [target, handler, request.options]) as unknown as Registration);
      return this.traced({});
    }
    const scope = request.scope;
    return this.attempt(() => {
      const dispose = this.registry(scope).add(target as AnyStage, handler as never, request.options);
      if (request.label !== undefined) this.labels.set(request.label, { dispose, target, handler, scope });
    });
  }

  /** `registry.use` of a bundle whose setup registers the handlers given (`chain.bundle`). */
  bundle(request: RequestOf<'chain.bundle'>): ReplyOf<'chain.bundle'> {
    return this.attempt(() => {
      const dispose = this.registry(request.scope).use({
        name: request.name,
        setup: (registrar) => {
          let registered = 0;
          for (const member of request.handlers) {
            if (request.throwAfter === registered) break;
            registrar.add(this.targetOf(member) as AnyStage, this.handlerOf(member) as never, member.options);
            registered++;
          }
          for (const provided of request.provides ?? []) {
            if (request.throwAfter === registered) break;
            const key = 'rawKey' in provided ? provided.rawKey : this.keys.get(provided.key);
            if (key === undefined) throw new Error(`the case names the unknown key "${provided.key}"`);
            const disposeOne = registrar.provide(key as ContributionKey<unknown>, structuredClone(provided.value));
            if (provided.label !== undefined) this.labels.set(provided.label, { dispose: disposeOne });
            registered++;
          }
          if (request.throwAfter !== undefined) {
            const failed = new Error('setup failed');
            this.environment.userErrors.add(failed);
            throw failed;
          }
        },
      });
      if (request.label !== undefined) this.labels.set(request.label, { dispose });
    });
  }

  /** `createContributionKey(name, options?)`, the key kept under its name (`chain.key`). */
  key(request: RequestOf<'chain.key'>): ReplyOf<'chain.key'> {
    const options: Record<string, unknown> = {};
    if ('identify' in request)
      options.identify = request.identify === true ? (value: unknown) => (value as { id?: unknown }).id : request.identify;
    if ('stage' in request) options.stage = request.stage === true ? this.stages.get(undefined) : request.stage;
    return this.attempt(() => {
      const key = createContributionKey(request.name as string, (Object.keys(options).length === 0 ? undefined : options) as never);
      this.keys.set(key.name, key);
    });
  }

  /** `contributions(key)` with a new key of the name (`chain.contributions`). */
  contributions(request: RequestOf<'chain.contributions'>): ReplyOf<'chain.contributions'> {
    try {
      const entries = this.registry(request.on).contributions(createContributionKey(request.key));
      return this.traced({
        entries: entries.map((entry) => Object.fromEntries(Object.entries(entry).map(([field, value]) => [field, asJson(value ?? null)]))),
      });
    } catch (error) {
      return this.failed(error);
    }
  }

  /** Registers a built-in middleware (`chain.use`). */
  useBuiltin(request: RequestOf<'chain.use'>): ReplyOf<'chain.use'> {
    const factory = builtin(request.builtin);
    return this.attempt(() => {
      const dispose = this.registry(request.scope).use(
        factory(request.options, { stage: this.stages.get(undefined) as AnyStage, environment: this.environment }),
      );
      if (request.label !== undefined) this.labels.set(request.label, { dispose });
    });
  }

  /** Calls a labelled disposer (`chain.dispose`). */
  dispose(request: RequestOf<'chain.dispose'>): ReplyOf<'chain.dispose'> {
    const entry = this.labelled(request.label);
    for (let time = 0; time < request.times; time++) entry.dispose();
    return this.traced({});
  }

  /** `registry.remove(id)` or `remove(target, handler)` (`chain.remove`). */
  remove(request: RequestOf<'chain.remove'>): ReplyOf<'chain.remove'> {
    if (request.handlerId !== undefined) return this.traced({ removed: this.registry(request.scope).remove(request.handlerId) });
    const entry = this.labelled(request.label ?? '');
    return this.traced({ removed: this.registry(request.scope ?? entry.scope).remove(entry.target as AnyStage, entry.handler as never) });
  }

  /** Adds the recording instrumentation (`chain.instrument`). */
  instrument(request: RequestOf<'chain.instrument'>): ReplyOf<'chain.instrument'> {
    const layerReturns = 'layerReturns' in request ? { value: request.layerReturns } : undefined;
    const invokeReturns = 'invokeReturns' in request ? { value: request.invokeReturns } : undefined;
    this.registry(request.scope).instrument({
      name: request.name,
      invoke: () => (invokeReturns === undefined ? observer(request.name, this.environment, layerReturns) : (invokeReturns.value as never)),
    });
    return this.traced({});
  }

  /** `describe()` and `explain()` of the stage (`chain.describe`). */
  describe(request: RequestOf<'chain.describe'>): ReplyOf<'chain.describe'> {
    try {
      const registry = this.registry(request.on);
      const stage = this.stages.get(undefined) as AnyStage;
      // JSON has no undefined: an absent id or bundle is reported as null.
      const entries = registry
        .describe(stage, { use: this.use })
        .map((entry) => Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, (value ?? null) as Json])));
      return this.traced({ entries, explain: registry.explain(stage, { use: this.use }) });
    } catch (error) {
      return this.failed(error);
    }
  }

  /** `invoke()`, or `run()` awaited (`chain.invoke`). */
  async invoke(request: RequestOf<'chain.invoke'>): Promise<ReplyOf<'chain.invoke'>> {
    const stage = this.stages.get(undefined) as AnyStage;
    // A phase token or a spread copy in place of the stage (MW-035).
    const invoked: unknown = request.stageAs === 'input-token' ? stage.Input : request.stageAs === 'forged' ? { ...stage } : stage;
    const options: Record<string, unknown> = {};
    if (this.invalidSignal) options.signal = 'not a signal';
    if (this.environment.controller !== undefined) options.signal = this.environment.controller.signal;
    if (this.state !== undefined) options.state = this.state;
    if (this.use.length > 0) options.use = this.use;
    const spec = request.terminal;
    const terminalFunction =
      'notAFunction' in spec ? spec.notAFunction : terminal(spec.calls, this.environment, spec.finally, spec.returns);
    const registry = this.registry(request.on);
    try {
      if (request.consumer === 'run') {
        const result: unknown = await registry.run(invoked as AnyStage, request.context, terminalFunction as never, options);
        return this.traced(result === undefined ? {} : { result: asJson(result) });
      }
      this.iterator = registry.invoke(invoked as AnyStage, request.context, terminalFunction as never, options) as AsyncGenerator<
        unknown,
        void,
        undefined
      >;
      return this.traced({});
    } catch (error) {
      return this.failed(error);
    }
  }

  /** Pulls one event (`chain.next`). */
  async next(): Promise<ReplyOf<'chain.next'>> {
    const iterator = this.invoked();
    try {
      const pulled = await iterator.next();
      if (pulled.done === true) return this.traced({ done: true });
      return this.traced({
        done: false,
        ...(pulled.value === undefined ? {} : { value: asJson(pulled.value) }),
        frozen: deeplyFrozen(pulled.value),
      });
    } catch (error) {
      return this.failed(error);
    }
  }

  /** The invoke's `return()`, `throw(Error("consumer stop"))` or `[Symbol.asyncDispose]()`. */
  async stop(how: 'return' | 'throw' | 'asyncDispose'): Promise<ReplyOf<'chain.asyncDispose'>> {
    const iterator = this.invoked();
    try {
      if (how === 'return') await iterator.return(undefined);
      else if (how === 'throw') await iterator.throw(this.consumerStop());
      else {
        const value: unknown = await (iterator as unknown as { [Symbol.asyncDispose](): PromiseLike<unknown> })[Symbol.asyncDispose]();
        if (value !== undefined) return this.traced({ value: value as Json });
      }
      return this.traced({});
    } catch (error) {
      return this.failed(error);
    }
  }

  /** Aborts the invoke's signal (`chain.abort`). */
  abort(request: RequestOf<'chain.abort'>): ReplyOf<'chain.abort'> {
    this.environment.controller?.abort(request.reason);
    return this.traced({});
  }

  /** Calls the kept `next` functions and reports what the case left (`chain.end`). */
  end(): ReplyOf<'chain.end'> {
    for (const late of this.environment.keptNexts) {
      try {
        late();
        this.environment.trace.push('late:no error');
      } catch (error) {
        this.environment.trace.push(`late:${errorText(error)}`);
      }
    }
    return this.traced({
      warnings: this.warnings.map(({ code, id, handler }) => ({ code, id, handler })),
      stateWrites: this.stateWrites.map(asJson),
      stateGets: this.stateGets,
      // Without a state binding there is no snapshot, so none is frozen.
      snapshotFrozen: this.state !== undefined && deeplyFrozen(this.snapshot),
    });
  }

  private bindState(spec: NonNullable<RequestOf<'chain.begin'>['state']>): void {
    this.snapshot = 'initial' in spec ? initialState(spec) : { number: 7, string: 'text', null: null }[spec.invalid];
    let current = this.snapshot;
    this.state = {
      get: () => {
        this.stateGets++;
        return current;
      },
      set: (value: unknown) => {
        this.stateWrites.push(value);
        current = value;
      },
    };
    this.environment.bindingSet = this.state.set;
  }

  private registry(scope: 'parent' | 'child' | undefined): MiddlewareRegistry {
    return scope === 'child' ? this.child : this.parent;
  }

  private labelled(label: string): Labelled {
    const entry = this.labels.get(label);
    if (entry === undefined) throw new Error(`the case names the unknown label "${label}"`);
    return entry;
  }

  private targetOf(request: Registrant): unknown {
    const owner = this.stages.get(request.stage);
    if (owner === undefined) throw new Error(`the case names the unknown stage "${String(request.stage)}"`);
    if (request.target === 'bare') return owner;
    const token = request.phase === 'input' ? owner.Input : request.phase === 'output' ? owner.Output : owner.Wrap;
    return request.target === 'forged' ? { ...token } : token;
  }

  private handlerOf(request: Registrant): unknown {
    const spec = request.handler;
    if ('notAFunction' in spec) return spec.notAFunction;
    if ('reuse' in spec) return this.labelled(spec.reuse).handler;
    const steps = spec.steps as never[];
    if (request.phase === 'input') return inputHandler(steps, this.environment, spec.fnName, spec.async === true);
    if (request.phase === 'output') return outputHandler(steps, this.environment, spec.fnName, spec.async === true);
    return wrapHandler(steps, this.environment, spec.fnName, spec.finally, spec.returns);
  }

  private invoked(): AsyncGenerator<unknown, void, undefined> {
    if (this.iterator === undefined) throw new Error('the runner pulled before a chain.invoke with consumer "iterate"');
    return this.iterator;
  }

  private consumerStop(): Error {
    const stop = new Error('consumer stop');
    this.environment.userErrors.add(stop);
    return stop;
  }

  /** Runs a registry call whose error is reported rather than thrown. */
  private attempt(action: () => void): Traced & { error?: ErrorReport } {
    try {
      action();
      return this.traced({});
    } catch (error) {
      return this.failed(error);
    }
  }

  private failed(error: unknown): Traced & { error: ErrorReport } {
    return this.traced({ error: reportError(error, this.environment.userErrors) });
  }

  /** Adds the trace lines recorded since the previous reply. */
  private traced<TReply extends object>(reply: TReply): TReply & Traced {
    const { trace } = this.environment;
    if (trace.length === this.sent) return reply;
    const lines = trace.slice(this.sent);
    this.sent = trace.length;
    return { ...reply, trace: lines };
  }
}

/** The abort reason of `signal.abortBefore`: the string, or a reason that is hard to describe. */
function abortReason(text: string, kind: 'throwing-message' | 'revoked-proxy' | 'null-prototype' | undefined): unknown {
  if (kind === 'throwing-message') {
    const reason = new Error(text);
    Object.defineProperty(reason, 'message', {
      get() {
        throw new Error('the message getter throws');
      },
    });
    return reason;
  }
  if (kind === 'revoked-proxy') {
    const { proxy, revoke } = Proxy.revocable(new Error(text), {});
    revoke();
    return proxy;
  }
  if (kind === 'null-prototype') return Object.assign(Object.create(null) as object, { message: text });
  return text;
}
