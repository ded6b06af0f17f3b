/** The context, events and stages the type tests of stages, handlers and invokes share. */
import { createStage } from '../../src/core/index';

/** The context of the model stage. */
export interface Context {
  /** The prompt. */
  readonly prompt: string;
  /** The sampling temperature. */
  readonly temperature: number;
}
/** A streamed piece of text. */
export interface Delta {
  /** The event's kind. */
  readonly type: 'delta';
  /** The event's text. */
  readonly text: string;
}
/** The result event of the model stage. */
export interface Final {
  /** The event's kind. */
  readonly type: 'result';
  /** The event's text. */
  readonly text: string;
  /** The tokens it took. */
  readonly tokens: number;
}
/** The events of the model stage. */
export type Event = Delta | Final;

/** A stage with a result guard, like a model call. */
export const ModelStage = createStage<Context, Final, Event>('model', {
  isResult: (event): event is Final => event.type === 'result',
});
/** A stage without a guard, like a tool call. */
export const ToolStage = createStage<{ readonly tool: string }, string>('tool');
