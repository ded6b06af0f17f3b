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
import type { LayerGenerator } from './generators';
import type { HandlerInfo, InvokeObserver, InvokeOutcome, LayerInfo } from './instrumentation';

/** The observers of one invoke and the attempt counts of its layer positions. */
export class InvokeObservation {
  /** Entries into each layer position so far (index = position; the terminal's is the number of Wrap handlers). */
  private readonly attempts: number[];

  private constructor(
    private readonly chain: ResolvedChain,
    private readonly observers: readonly InvokeObserver[],
  ) {
    this.attempts = new Array<number>(chain.wrap.length + 1).fill(0);
  }

  /** Asks every instrumentation of the chain for an observer; undefined when none returned one. */
  static start(chain: ResolvedChain, context: unknown, signal: AbortSignal | undefined): InvokeObservation | undefined {
    const info = { stage: chain.stage, context, signal };
    let observers: InvokeObserver[] | undefined;
    for (const instrumentation of chain.instrumentations) {
      const observer = instrumentation.invoke(info);
      if (observer !== undefined) (observers ??= []).push(observer);
    }
    return observers === undefined ? undefined : new InvokeObservation(chain, observers);
  }

  /** Reports that an Input or Output handler is about to run; returns the info to end it with. */
  handlerStart(phase: HandlerInfo['phase'], entry: ResolvedEntry, position: number): HandlerInfo {
    const info: HandlerInfo = { stage: this.chain.stage, phase, handler: entry.name, position, order: entry.order };
    for (const observer of this.observers) observer.handlerStart?.(info);
    return info;
  }

  /** Reports that an Input or Output handler returned. */
  handlerEnd(info: HandlerInfo): void {
    for (const observer of this.observers) observer.handlerEnd?.(info);
  }

  /**
   * Reports that an Input or Output handler threw or broke its contract. The
   * error is always passed, so a handler that throws `undefined` is still
   * reported as failed.
   */
  handlerFailed(info: HandlerInfo, error: unknown): void {
    for (const observer of this.observers) observer.handlerEnd?.(info, error);
  }

  /** The info of a new entry into layer `index`, counting it as the next attempt at that position. */
  layerInfo(index: number, context: unknown, parent: LayerInfo | undefined): LayerInfo {
    const attempts = this.attempts;
    attempts[index] = (attempts[index] ?? 0) + 1;
    const entry = this.chain.wrap[index];
    return {
      stage: this.chain.stage,
      kind: entry === undefined ? 'terminal' : 'wrap',
      handler: entry === undefined ? 'terminal' : entry.name,
      id: entry?.id,
      order: entry?.order ?? 0,
      position: index,
      attempt: attempts[index] as number,
      context,
      parent,
    };
  }

  /** Lets every observer with a `layer` method wrap the events of one layer entry. */
  wrapLayer(info: LayerInfo, generator: LayerGenerator): LayerGenerator {
    let wrapped = generator;
    for (const observer of this.observers) {
      if (observer.layer !== undefined) wrapped = observer.layer(info, wrapped);
    }
    return wrapped;
  }

  /** Reports how the invoke ended. */
  end(outcome: InvokeOutcome): void {
    for (const observer of this.observers) observer.end?.(outcome);
  }
}
