/**
 * The instrumentation side of one invoke: the observers instrumentations
 * returned, the info each layer entry and handler call reports, and the
 * calls into the observers.
 *
 * Kept apart from the invoke so that an invoke without observers pays one
 * `undefined` check per handler and per layer entry, and nothing else.
 *
 * @packageDocumentation
 */
import type { ResolvedChain, ResolvedEntry } from './chain';
import type { LayerGenerator } from './layer';
import type { HandlerInfo, Instrumentation, InvokeInfo, InvokeObserver, InvokeOutcome, LayerInfo } from './instrumentation';
import * as messages from './messages';
import { isObject } from '../util/is-object';

/** The observers of one invoke and the attempt counts of its layer positions. */
export class InvokeObservation {
  /** Entries into each layer position so far (index = position; the terminal's is the number of Wrap handlers). */
  readonly #attempts: number[] = [];

  /** The resolved chain (a private field of the language, like the invoke's: it is shared between invokes). */
  readonly #chain: ResolvedChain;

  readonly #observers: readonly InvokeObserver[];
  /** The name of each observer's instrumentation, for errors. */
  readonly #names: readonly string[];

  private constructor(chain: ResolvedChain, observers: readonly InvokeObserver[], names: readonly string[]) {
    this.#chain = chain;
    this.#observers = observers;
    this.#names = names;
  }

  /**
   * Asks every instrumentation of the chain for an observer; undefined when none returned one.
   *
   * @throws MiddlewareError `ERR_INVALID_HANDLER` when `invoke()` returns something that is neither undefined nor an observer.
   */
  static start(chain: ResolvedChain, context: unknown, signal: AbortSignal | undefined): InvokeObservation | undefined {
    const info: InvokeInfo = Object.freeze({ stage: chain.stage, context, signal });
    let observers: InvokeObserver[] | undefined;
    let names: string[] | undefined;
    for (const instrumentation of chain.instrumentations) {
      const observer: unknown = instrumentation.invoke(info);
      if (observer === undefined) continue;
      const name = instrumentationName(instrumentation);
      if (!isObserver(observer)) throw messages.invalidInstrumentation(chain.stage.name, name, 'invoke', observer);
      (observers ??= []).push(observer);
      (names ??= []).push(name);
    }
    return observers === undefined ? undefined : new InvokeObservation(chain, observers, names as string[]);
  }

  /** Reports that an Input or Output handler is about to run; returns the info to end it with. */
  handlerStart(phase: HandlerInfo['phase'], entry: ResolvedEntry, position: number): HandlerInfo {
    const info: HandlerInfo = Object.freeze({ stage: this.#chain.stage, phase, handler: entry.name, position, order: entry.order });
    for (const observer of this.#observers) observer.handlerStart?.(info);
    return info;
  }

  /** Reports that an Input or Output handler returned. */
  handlerEnd(info: HandlerInfo): void {
    for (const observer of this.#observers) observer.handlerEnd?.(info);
  }

  /**
   * Reports that an Input or Output handler threw or broke its contract. The
   * error is always passed, so a handler that throws `undefined` is still
   * reported as failed.
   */
  handlerFailed(info: HandlerInfo, error: unknown): void {
    for (const observer of this.#observers) observer.handlerEnd?.(info, error);
  }

  /** The info of a new entry into layer `index`, counting it as the next attempt at that position. */
  layerInfo(index: number, context: unknown, parent: LayerInfo | undefined): LayerInfo {
    const attempts = this.#attempts;
    attempts[index] = (attempts[index] ?? 0) + 1;
    const entry = this.#chain.wrap[index];
    return Object.freeze({
      stage: this.#chain.stage,
      kind: entry === undefined ? 'terminal' : 'wrap',
      handler: entry === undefined ? 'terminal' : entry.name,
      id: entry?.id,
      order: entry?.order ?? 0,
      position: index,
      attempt: attempts[index],
      context,
      parent,
    });
  }

  /**
   * Lets every observer with a `layer` method wrap the events of one layer entry.
   *
   * @throws MiddlewareError `ERR_INVALID_HANDLER` when a `layer()` returns something that is not an async generator.
   */
  wrapLayer(info: LayerInfo, generator: LayerGenerator): LayerGenerator {
    let wrapped = generator;
    const observers = this.#observers;
    for (let index = 0; index < observers.length; index++) {
      const observer = observers[index] as InvokeObserver;
      if (observer.layer === undefined) continue;
      const produced: unknown = observer.layer(info, wrapped);
      if (!isAsyncGenerator(produced)) {
        const layer = info.kind === 'terminal' ? 'the terminal' : `Wrap handler "${info.handler}"`;
        throw messages.invalidInstrumentation(this.#chain.stage.name, this.#names[index] as string, 'layer', produced, layer);
      }
      wrapped = produced;
    }
    return wrapped;
  }

  /** Reports how the invoke ended. */
  end(outcome: InvokeOutcome): void {
    for (const observer of this.#observers) observer.end?.(outcome);
  }
}

const HOOKS = ['layer', 'handlerStart', 'handlerEnd', 'end'] as const;

/** An object whose hooks, where present, are functions. */
function isObserver(value: unknown): value is InvokeObserver {
  if (!isObject(value)) return false;
  for (const hook of HOOKS) {
    const candidate = (value as Record<string, unknown>)[hook];
    if (candidate !== undefined && typeof candidate !== 'function') return false;
  }
  return true;
}

/** What the invoke can drive as a layer: `next`, `return` and `Symbol.asyncIterator`. */
function isAsyncGenerator(value: unknown): value is LayerGenerator {
  if (!isObject(value)) return false;
  const candidate = value as Partial<LayerGenerator>;
  return (
    typeof candidate.next === 'function' && typeof candidate.return === 'function' && typeof candidate[Symbol.asyncIterator] === 'function'
  );
}

/** The instrumentation's name for errors; `name` is not checked at registration. */
function instrumentationName(instrumentation: Instrumentation): string {
  const name: unknown = instrumentation.name;
  return typeof name === 'string' && name.length > 0 ? name : 'anonymous instrumentation';
}
