/**
 * An async generator whose stretches of pass-through run without it. The
 * agent's run and its turn loop are generators for their control flow (a
 * turn, its tools, the commit), but spend nearly all their events passing on
 * those of a stage invoke, each looked at once. As `for await` plus `yield`
 * inside a generator, that costs the generator's promise, its await of the
 * event and the loop's await per event; handed to a {@link Relay} as a
 * {@link Passage}, an event costs one promise reaction, and the generator
 * resumes only when the stretch ends.
 *
 * @packageDocumentation
 */
import { callSafely, pullFrom, type LayerGenerator } from '../core/internal';
import { pullsThrough } from '../core/internal';
import { QueuedIterator, type Answer } from '../core/internal';

/**
 * A stretch of events the generator hands to its relay: the events of
 * `source`, each passed to `observe` and delivered as it returns it (a
 * promise of the event when there is something to wait for first). The
 * generator resumes when `source` ends, as from a `for await` over it: when
 * `source` fails, `observe` throws or the relay is stopped, the generator
 * sees what its own loop would have seen there (the error thrown, or the
 * return), `source` closed first unless it failed itself.
 */
export class Passage<TEvent> {
  /** `source` is an iterator of ours, pulled with `nextThen` (`queued-iterator.ts`). */
  readonly ours: boolean;

  constructor(
    readonly source: AsyncIterator<TEvent>,
    readonly observe: (event: TEvent) => TEvent | Promise<TEvent>,
  ) {
    this.ours = pullsThrough(source as LayerGenerator);
  }
}

/** The generator a relay runs: its events, and the passages it hands over. */
export type RelayedGenerator<TEvent> = AsyncGenerator<TEvent | Passage<TEvent>, void, undefined>;

/**
 * Pulls a passage's source and hands the step to the callbacks: in the source's own reaction when it is an
 * iterator of ours (`nextThen`), so a stack of our iterators costs one reaction per event.
 */
function pullSource<TEvent, TResult>(
  passage: Passage<TEvent>,
  onStep: (step: IteratorResult<unknown, unknown>) => TResult | Promise<TResult>,
  onFailed: (error: unknown) => TResult | Promise<TResult>,
): Promise<TResult> {
  const source = passage.source;
  return passage.ours
    ? (source as unknown as QueuedIterator<unknown>).nextThen(onStep, onFailed)
    : pullFrom(source as LayerGenerator).then(onStep, onFailed);
}

/**
 * Runs `generator`, delivering its events and the events of the passages it
 * yields. Behaves as the generator would, were each passage a `for await`
 * over its source yielding what `observe` returns.
 */
export class Relay<TEvent> extends QueuedIterator<TEvent> {
  private passage: Passage<TEvent> | undefined;
  // Per-relay callbacks that only call methods: methods keep their optimised code across collections (see Invocation).
  private readonly onYielded = (step: IteratorResult<TEvent | Passage<TEvent>, void>): Answer<TEvent> | Promise<Answer<TEvent>> =>
    this.yielded(step);
  private readonly onPassed = (step: IteratorResult<unknown, unknown>): Answer<TEvent> | Promise<Answer<TEvent>> =>
    this.passed(step as IteratorResult<TEvent, unknown>);
  private readonly onPassFailed = (error: unknown): Promise<Answer<TEvent>> => this.passFailed(error);

  constructor(private readonly generator: RelayedGenerator<TEvent>) {
    super();
  }

  protected pull(): Promise<Answer<TEvent>> {
    const passage = this.passage;
    if (passage !== undefined) return pullSource(passage, this.onPassed, this.onPassFailed);
    return this.resume(this.generator.next());
  }

  /**
   * A pull of the passage under way, for an iterator of ours pulling this relay (`nextThen`): the answer goes on to
   * the puller's callbacks in the reaction that made it, so the relay adds no reaction of its own per event.
   */
  protected override pullThrough(): Promise<unknown> | undefined {
    const passage = this.passage;
    // Between passages the generator runs, whose steps are promises of its own: the puller's callbacks wait for next().
    if (passage === undefined) return undefined;
    return pullSource(
      passage,
      // Answered as passed() answers, or as passFailed() has the generator see the failure, then handed to the puller.
      (this.onPassedThrough ??= (step) => this.handOn(this.passed(step as IteratorResult<TEvent, unknown>), step)),
      (this.onPassFailedThrough ??= (error) => this.handOn(this.passFailed(error))),
    );
  }

  // Made on the first pull through (see above for why they only call methods).
  private onPassedThrough: ((step: IteratorResult<unknown, unknown>) => unknown) | undefined;
  private onPassFailedThrough: ((error: unknown) => unknown) | undefined;

  protected stop(rethrow: boolean, error: unknown): Promise<Answer<TEvent>> {
    const { passage, generator } = this;
    this.passage = undefined;
    const finish = (): Promise<IteratorResult<TEvent | Passage<TEvent>, void>> =>
      rethrow ? generator.throw(error) : generator.return(error as undefined);
    const ending =
      passage === undefined
        ? finish()
        : // As a for await left by a return: a failure to close the source is thrown where the loop was; left by a throw, it is dropped.
          callSafely(passage.source as LayerGenerator, 'return', undefined).then(finish, (closing: unknown) =>
            generator.throw(rethrow ? error : closing),
          );
    return ending.then(this.answered() as (step: IteratorResult<TEvent | Passage<TEvent>, void>) => Answer<TEvent>, this.rethrow());
  }

  /** Waits for the generator's next step. */
  private resume(step: Promise<IteratorResult<TEvent | Passage<TEvent>, void>>): Promise<Answer<TEvent>> {
    return step.then(this.onYielded, this.rethrow());
  }

  /** The generator yielded (or ended): an event goes out; a passage starts. */
  private yielded(step: IteratorResult<TEvent | Passage<TEvent>, void>): Answer<TEvent> | Promise<Answer<TEvent>> {
    if (step.done !== true && step.value instanceof Passage) {
      this.passage = step.value;
      return this.pull();
    }
    this.outstanding--;
    return step as Answer<TEvent>;
  }

  /** The passage's source gave a step: the event, as observed, goes out; at its end the generator resumes. */
  private passed(step: IteratorResult<TEvent, unknown>): Answer<TEvent> | Promise<Answer<TEvent>> {
    const passage = this.passage as Passage<TEvent>;
    if (step.done === true) {
      this.passage = undefined;
      return this.resume(this.generator.next());
    }
    let value: TEvent | Promise<TEvent>;
    try {
      value = passage.observe(step.value);
    } catch (error) {
      return this.abandon(passage, error);
    }
    if (value instanceof Promise) return this.deliverLater(passage, value);
    this.outstanding--;
    return value === step.value ? step : { value, done: false };
  }

  /** The passage's source failed: the generator sees the error where its loop was; a failed source is not closed. */
  private passFailed(error: unknown): Promise<Answer<TEvent>> {
    this.passage = undefined;
    return this.resume(this.generator.throw(error));
  }

  /** An observation with something to wait for first. */
  private async deliverLater(passage: Passage<TEvent>, pending: Promise<TEvent>): Promise<Answer<TEvent>> {
    let value: TEvent;
    try {
      value = await pending;
    } catch (error) {
      return this.abandon(passage, error);
    }
    this.outstanding--;
    return { value, done: false };
  }

  /** The observation failed: as a for await left by a throw, the source is closed (a failure of that dropped), then the generator sees the error. */
  private async abandon(passage: Passage<TEvent>, error: unknown): Promise<Answer<TEvent>> {
    this.passage = undefined;
    try {
      await callSafely(passage.source as LayerGenerator, 'return', undefined);
    } catch {
      // Dropped: the error that left the loop is the one that counts.
    }
    return this.resume(this.generator.throw(error));
  }
}
