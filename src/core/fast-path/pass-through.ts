/**
 * An async generator whose stretches of pass-through run without it. The
 * agent's run and its turn loop are generators for their control flow (a
 * turn, its tools, the commit), but spend nearly all their events passing on
 * those of a stage invoke, each looked at once. As `for await` plus `yield`
 * inside a generator, that costs the generator's promise, its await of the
 * event and the loop's await per event; handed to a {@link PassThroughGenerator} as a
 * {@link Delegation}, an event costs one promise reaction, and the generator
 * resumes only when the stretch ends.
 *
 * @packageDocumentation
 */
import { callSafely, pullFrom, type LayerGenerator } from '../layer';
import { isOwnIterator } from './native-next';
import { SerialAsyncGenerator, type Answer } from './serial-async-generator';

/**
 * A stretch of events the generator hands to its pass-through generator: the events of
 * `source`, each passed to `observe` and delivered as it returns it (a
 * promise of the event when there is something to wait for first). The
 * generator resumes when `source` ends, as from a `for await` over it: when
 * `source` fails, `observe` throws or the pass-through generator is stopped, the generator
 * sees what its own loop would have seen there (the error thrown, or the
 * return), `source` closed first unless it failed itself.
 */
export class Delegation<TEvent> {
  /** `source` is an iterator of ours, pulled with `nextInto` (`serial-async-generator.ts`). */
  readonly ours: boolean;

  constructor(
    readonly source: AsyncIterator<TEvent>,
    readonly observe: (event: TEvent) => TEvent | Promise<TEvent>,
  ) {
    this.ours = isOwnIterator(source as LayerGenerator);
  }
}

/** The generator a pass-through generator runs: its events, and the delegations it hands over. */
export type DelegatingGenerator<TEvent> = AsyncGenerator<TEvent | Delegation<TEvent>, void, undefined>;

/**
 * Pulls a delegation's source and hands the step to the callbacks: in the source's own reaction when it is an
 * iterator of ours (`nextInto`), so a stack of our iterators costs one reaction per event.
 */
function pullDelegated<TEvent, TResult>(
  delegation: Delegation<TEvent>,
  onStep: (step: IteratorResult<unknown, unknown>) => TResult | Promise<TResult>,
  onFailed: (error: unknown) => TResult | Promise<TResult>,
): Promise<TResult> {
  const source = delegation.source;
  return delegation.ours
    ? (source as unknown as SerialAsyncGenerator<unknown>).nextInto(onStep, onFailed)
    : pullFrom(source as LayerGenerator).then(onStep, onFailed);
}

/**
 * Runs `generator`, delivering its events and the events of the delegations it
 * yields. Behaves as the generator would, were each delegation a `for await`
 * over its source yielding what `observe` returns.
 */
export class PassThroughGenerator<TEvent> extends SerialAsyncGenerator<TEvent> {
  private delegation: Delegation<TEvent> | undefined;
  // Per-generator callbacks that only call methods: methods keep their optimised code across collections (see Invocation).
  private readonly onYielded = (step: IteratorResult<TEvent | Delegation<TEvent>, void>): Answer<TEvent> | Promise<Answer<TEvent>> =>
    this.yielded(step);
  private readonly onSourceStep = (step: IteratorResult<unknown, unknown>): Answer<TEvent> | Promise<Answer<TEvent>> =>
    this.sourceStep(step as IteratorResult<TEvent, unknown>);
  private readonly onSourceFailed = (error: unknown): Promise<Answer<TEvent>> => this.sourceFailed(error);

  constructor(private readonly generator: DelegatingGenerator<TEvent>) {
    super();
  }

  protected pull(): Promise<Answer<TEvent>> {
    const delegation = this.delegation;
    if (delegation !== undefined) return pullDelegated(delegation, this.onSourceStep, this.onSourceFailed);
    return this.resume(this.generator.next());
  }

  /**
   * A pull of the delegation under way, for an iterator of ours pulling this pass-through generator (`nextInto`): the answer goes on to
   * the puller's callbacks in the reaction that made it, so it adds no reaction of its own per event.
   */
  protected override tryDirectPull(): Promise<unknown> | undefined {
    const delegation = this.delegation;
    // Between delegations the generator runs, whose steps are promises of its own: the puller's callbacks wait for next().
    if (delegation === undefined) return undefined;
    return pullDelegated(
      delegation,
      // Answered as sourceStep() answers, or as sourceFailed() has the generator see the failure, then handed to the puller.
      (this.onSourceStepDirect ??= (step) => this.deliverDirect(this.sourceStep(step as IteratorResult<TEvent, unknown>), step)),
      (this.onSourceFailedDirect ??= (error) => this.deliverDirect(this.sourceFailed(error))),
    );
  }

  // Made on the first direct pull (see above for why they only call methods).
  private onSourceStepDirect: ((step: IteratorResult<unknown, unknown>) => unknown) | undefined;
  private onSourceFailedDirect: ((error: unknown) => unknown) | undefined;

  protected stop(rethrow: boolean, error: unknown): Promise<Answer<TEvent>> {
    const { delegation, generator } = this;
    this.delegation = undefined;
    const finish = (): Promise<IteratorResult<TEvent | Delegation<TEvent>, void>> =>
      rethrow ? generator.throw(error) : generator.return(error as undefined);
    const ending =
      delegation === undefined
        ? finish()
        : // As a for await left by a return: a failure to close the source is thrown where the loop was; left by a throw, it is dropped.
          callSafely(delegation.source as LayerGenerator, 'return', undefined).then(finish, (closing: unknown) =>
            generator.throw(rethrow ? error : closing),
          );
    return ending.then(this.answered() as (step: IteratorResult<TEvent | Delegation<TEvent>, void>) => Answer<TEvent>, this.rethrow());
  }

  /** Waits for the generator's next step. */
  private resume(step: Promise<IteratorResult<TEvent | Delegation<TEvent>, void>>): Promise<Answer<TEvent>> {
    return step.then(this.onYielded, this.rethrow());
  }

  /** The generator yielded (or ended): an event goes out; a delegation starts. */
  private yielded(step: IteratorResult<TEvent | Delegation<TEvent>, void>): Answer<TEvent> | Promise<Answer<TEvent>> {
    if (step.done !== true && step.value instanceof Delegation) {
      this.delegation = step.value;
      return this.pull();
    }
    this.outstanding--;
    return step as Answer<TEvent>;
  }

  /** The delegation's source gave a step: the event, as observed, goes out; at its end the generator resumes. */
  private sourceStep(step: IteratorResult<TEvent, unknown>): Answer<TEvent> | Promise<Answer<TEvent>> {
    const delegation = this.delegation as Delegation<TEvent>;
    if (step.done === true) {
      this.delegation = undefined;
      return this.resume(this.generator.next());
    }
    let value: TEvent | Promise<TEvent>;
    try {
      value = delegation.observe(step.value);
    } catch (error) {
      return this.abandon(delegation, error);
    }
    if (value instanceof Promise) return this.deliverLater(delegation, value);
    this.outstanding--;
    return value === step.value ? step : { value, done: false };
  }

  /** The delegation's source failed: the generator sees the error where its loop was; a failed source is not closed. */
  private sourceFailed(error: unknown): Promise<Answer<TEvent>> {
    this.delegation = undefined;
    return this.resume(this.generator.throw(error));
  }

  /** An observation with something to wait for first. */
  private async deliverLater(delegation: Delegation<TEvent>, pending: Promise<TEvent>): Promise<Answer<TEvent>> {
    let value: TEvent;
    try {
      value = await pending;
    } catch (error) {
      return this.abandon(delegation, error);
    }
    this.outstanding--;
    return { value, done: false };
  }

  /** The observation failed: as a for await left by a throw, the source is closed (a failure of that dropped), then the generator sees the error. */
  private async abandon(delegation: Delegation<TEvent>, error: unknown): Promise<Answer<TEvent>> {
    this.delegation = undefined;
    try {
      await callSafely(delegation.source as LayerGenerator, 'return', undefined);
    } catch {
      // Dropped: the error that left the loop is the one that counts.
    }
    return this.resume(this.generator.throw(error));
  }
}
