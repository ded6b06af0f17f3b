/** The stages, events, terminal and consumer the phase tests of the invoke share. */
import { createStage, MiddlewareRegistry, type Terminal } from '../../src/core/index';

/** The context of the test stages. */
export interface Context {
  /** The prompt. */
  readonly prompt: string;
}
/** A streamed piece of text. */
export interface Delta {
  /** The event's kind. */
  readonly type: 'delta';
  /** The event's text. */
  readonly text: string;
}
/** The result event of the guarded stage. */
export interface Final {
  /** The event's kind. */
  readonly type: 'result';
  /** The event's text. */
  readonly text: string;
}
/** The events of the guarded stage. */
export type Event = Delta | Final;

/** A stage whose result guard picks out result events. */
export const Guarded = createStage<Context, Final, Event>('guarded', { isResult: (event): event is Final => event.type === 'result' });
/** A stage without a guard: every event is a result candidate. */
export const Plain = createStage<Context, string>('plain');

/** A delta event. */
export const delta = (text: string): Delta => ({ type: 'delta', text });
/** A result event. */
export const final = (text: string): Final => ({ type: 'result', text });

/** A terminal yielding `events`, recording each yield and its end into `trace`. */
export function emitting<T>(events: readonly T[], trace?: string[]): Terminal<Context, T> {
  return async function* terminal() {
    for (const event of events) {
      trace?.push(`yield ${JSON.stringify(event)}`);
      yield event;
    }
    trace?.push('end');
  };
}

/** Drains an invoke, recording each event into `trace`; returns the events and the error, if any. */
export async function consume<T>(events: AsyncIterable<T>, trace?: string[]): Promise<{ events: T[]; error?: unknown }> {
  const seen: T[] = [];
  try {
    for await (const event of events) {
      trace?.push(`got ${JSON.stringify(event)}`);
      seen.push(event);
    }
    return { events: seen };
  } catch (error) {
    return { events: seen, error };
  }
}

/** A registry in hold mode whose Output handler changes nothing. */
export function holding(): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();
  registry.add(Guarded.Output, (result) => result);
  registry.add(Plain.Output, (result) => result);
  return registry;
}
