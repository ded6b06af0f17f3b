/** The events and stages the tests of the invoke's per-event shortcut share. */
import { createStage } from '../../src/core/index';
import { callSafely, pullFrom, type LayerGenerator } from '../../src/core/layer';
import { SerialAsyncGenerator, type Answer } from '../../src/core/fast-path/serial-async-generator';

/** A streamed event. */
export interface Delta {
  /** The event's kind. */
  readonly type: 'delta';
  /** Its number. */
  readonly n: number;
}
/** A result event. */
export interface Final {
  /** The event's kind. */
  readonly type: 'result';
  /** Its number. */
  readonly n: number;
  /** Set by the Output handler of a scenario that has one. */
  readonly checked?: boolean;
}
/** The events of the test stages. */
export type Event = Delta | Final;

/** A stage whose guard picks out result events. */
export const Guarded = createStage<unknown, Final, Event>('fastGuarded', { isResult: (event): event is Final => event.type === 'result' });
/** A stage without a guard. */
export const Unguarded = createStage<unknown, Event, Event>('fastUnguarded');

/** A pass-through layer built on SerialAsyncGenerator, as the agent's hand-written terminals are: the invoke pulls it with its shortcut. */
export class QueuedPassThrough<TEvent> extends SerialAsyncGenerator<TEvent> {
  private readonly onAnswer = (step: IteratorResult<unknown, void>): Answer<TEvent> => {
    this.outstanding--;
    return step as Answer<TEvent>;
  };

  constructor(private readonly source: AsyncGenerator<TEvent, void, undefined>) {
    super();
  }

  protected pull(): Promise<Answer<TEvent>> {
    return pullFrom(this.source as LayerGenerator).then(this.onAnswer, this.rethrow());
  }

  protected stop(rethrow: boolean, error: unknown): Promise<Answer<TEvent>> {
    return callSafely(this.source as LayerGenerator, rethrow ? 'throw' : 'return', error).then(this.onAnswer, this.rethrow());
  }
}
