/**
 * The chain primitives of the protocol, answered with this library: one
 * session per chain case, created by `chain.begin` and driven request by
 * request. This is what a port writes in its own language (spec/README.md,
 * "The protocol"); the runner does the rest. The registry requests are in
 * `chain-session-registry.ts`; here are the stage, the signal, the state
 * binding, and the invoke with its consumer.
 */
import { createStage, type AnyStage } from '../../src/core/index';
import type { Json } from '../cases/case-base';
import type { ReplyOf, RequestOf } from '../protocol/messages';
import { ChainSessionRegistry } from './chain-session-registry';
import { asJson, deeplyFrozen, initialState, makeStage } from './chain-values';
import { terminal } from './handler-scripts';
import { errorText, isResultEvent } from './script-environment';

/** One chain case on the library side of the protocol. */
export class ChainSession extends ChainSessionRegistry {
  private readonly stateWrites: unknown[] = [];
  private stateGets = 0;
  private snapshot: unknown;
  private state: { get: () => unknown; set: (value: unknown) => void } | undefined;
  private invalidSignal = false;
  private iterator: AsyncGenerator<unknown, void, undefined> | undefined;

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
      const opaque = this.environment.opaque.get(pulled.value);
      if (opaque !== undefined) return this.traced({ done: false, opaque });
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
      warnings: this.warnings.map((warning) =>
        warning.code === 'WARN_UNKNOWN_ID'
          ? { code: warning.code, id: warning.id, handler: warning.handler }
          : { code: warning.code, handler: warning.handler, places: [...warning.places] },
      ),
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

  private invoked(): AsyncGenerator<unknown, void, undefined> {
    if (this.iterator === undefined) throw new Error('the runner pulled before a chain.invoke with consumer "iterate"');
    return this.iterator;
  }

  private consumerStop(): Error {
    const stop = new Error('consumer stop');
    this.environment.userErrors.add(stop);
    return stop;
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
