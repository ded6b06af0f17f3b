/**
 * The registry side of a chain session (`chain-session.ts`): the case's two
 * registries (a parent and its child), its stages, labels and contribution
 * keys, the registry requests of the protocol, and the reply every request
 * gets, with the trace lines recorded since the previous one.
 *
 * @packageDocumentation
 */
import {
  createContributionKey,
  MiddlewareRegistry,
  type AnyStage,
  type ContributionKey,
  type Disposer,
  type MiddlewareWarning,
  type Registration,
} from '../../src/core/index';
import type { Json } from '../cases/case-base';
import type { ErrorReport } from '../protocol/error-report';
import type { ReplyOf, RequestOf } from '../protocol/messages';
import { builtin } from './builtins';
import { asJson, observer, reportError } from './chain-values';
import { inputHandler, outputHandler } from './handler-scripts';
import type { Environment } from './script-environment';
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

/** A chain case's registries and what it registered; `ChainSession` adds the stage's invoke. */
export abstract class ChainSessionRegistry {
  protected readonly environment: Environment = {
    trace: [],
    userErrors: new Set(),
    controller: undefined,
    locals: new Map(),
    keptNexts: [],
    opaque: new Map(),
    bindingSet: undefined,
  };
  protected readonly warnings: MiddlewareWarning[] = [];
  protected readonly parent = new MiddlewareRegistry({ onWarning: (warning) => this.warnings.push(warning) });
  protected readonly child = this.parent.child();
  protected readonly stages = new Map<string | undefined, AnyStage>();
  protected readonly labels = new Map<string, Labelled>();
  protected readonly keys = new Map<string, ContributionKey<unknown>>();
  protected readonly use: Registration[] = [];
  private sent = 0;

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
  protected registry(scope: 'parent' | 'child' | undefined): MiddlewareRegistry {
    return scope === 'child' ? this.child : this.parent;
  }

  protected labelled(label: string): Labelled {
    const entry = this.labels.get(label);
    if (entry === undefined) throw new Error(`the case names the unknown label "${label}"`);
    return entry;
  }

  protected targetOf(request: Registrant): unknown {
    const owner = this.stages.get(request.stage);
    if (owner === undefined) throw new Error(`the case names the unknown stage "${String(request.stage)}"`);
    if (request.target === 'bare') return owner;
    const token = request.phase === 'input' ? owner.Input : request.phase === 'output' ? owner.Output : owner.Wrap;
    return request.target === 'forged' ? { ...token } : token;
  }

  protected handlerOf(request: Registrant): unknown {
    const spec = request.handler;
    if ('notAFunction' in spec) return spec.notAFunction;
    if ('reuse' in spec) return this.labelled(spec.reuse).handler;
    const steps = spec.steps as never[];
    if (request.phase === 'input') return inputHandler(steps, this.environment, spec.fnName, spec.async === true);
    if (request.phase === 'output') return outputHandler(steps, this.environment, spec.fnName, spec.async === true);
    return wrapHandler(steps, this.environment, spec.fnName, spec.finally, spec.returns);
  }

  /** Runs a registry call whose error is reported rather than thrown. */
  protected attempt(action: () => void): Traced & { error?: ErrorReport } {
    try {
      action();
      return this.traced({});
    } catch (error) {
      return this.failed(error);
    }
  }

  protected failed(error: unknown): Traced & { error: ErrorReport } {
    return this.traced({ error: reportError(error, this.environment.userErrors) });
  }

  /** Adds the trace lines recorded since the previous reply. */
  protected traced<TReply extends object>(reply: TReply): TReply & Traced {
    const { trace } = this.environment;
    if (trace.length === this.sent) return reply;
    const lines = trace.slice(this.sent);
    this.sent = trace.length;
    return { ...reply, trace: lines };
  }
}
