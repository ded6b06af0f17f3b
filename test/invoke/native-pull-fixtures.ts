/** The events and stages the tests of the invoke's per-event shortcut share. */
import { createStage } from '../../src/index';

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
