/**
 * Stages and a controllable clock shared by the built-in middleware tests.
 */
import { createStage } from '../../src/core/index';
import type { AttemptBoundaryEvent, Timers } from '../../src/middleware/index';

/** Context of the test model stage. */
export interface ModelContext {
  readonly prompt: string;
  readonly model?: string;
}

/** A streamed chunk. */
export interface Chunk {
  readonly type: 'chunk';
  readonly text: string;
}

/** The result event. */
export interface Answer {
  readonly type: 'result';
  readonly text: string;
}

/** Events of the test model stage; it admits the default attempt boundary. */
export type ModelEvent = Chunk | Answer | AttemptBoundaryEvent;

/** A stage with a result guard, whose events admit `stream: 'live'`. */
export const ModelStage = createStage<ModelContext, Answer, ModelEvent>('model', {
  isResult: (event): event is Answer => event.type === 'result',
});

/** A stage without a guard whose events are plain strings. */
export const TextStage = createStage<{ readonly prompt: string }, string>('text');

/** Shorthands for events. */
export const chunk = (text: string): Chunk => ({ type: 'chunk', text });
export const answer = (text: string): Answer => ({ type: 'result', text });

/** Where the wall clock of {@link manualTimers} starts, in ms since the Unix epoch (2023-11-14). */
export const WALL_CLOCK_START = 1_700_000_000_000;

/** A clock the test drives: timers fire on `advance` (or at once with `auto`); every call is recorded. `wallClock()` moves with `now()`, from {@link WALL_CLOCK_START}. */
export interface ManualTimers extends Timers {
  /** Delays passed to setTimeout, in order. */
  readonly delays: number[];
  /** Timers scheduled and neither fired nor cleared. */
  pending(): number;
  /** Moves the clock on, firing due timers in order. */
  advance(ms: number): Promise<void>;
}

/** A {@link ManualTimers}; with `auto`, each timer fires by itself on the next promise turn (after its delay is recorded). */
export function manualTimers(options: { auto?: boolean } = {}): ManualTimers {
  let now = 0;
  let nextId = 1;
  const scheduled = new Map<number, { at: number; callback: () => void }>();
  const delays: number[] = [];
  return {
    delays,
    now: () => now,
    wallClock: () => WALL_CLOCK_START + now,
    setTimeout(callback, ms) {
      const id = nextId++;
      delays.push(ms);
      scheduled.set(id, { at: now + ms, callback });
      if (options.auto === true) {
        void Promise.resolve().then(() => {
          const entry = scheduled.get(id);
          if (entry === undefined) return;
          scheduled.delete(id);
          now = Math.max(now, entry.at);
          entry.callback();
        });
      }
      return id;
    },
    clearTimeout(handle) {
      scheduled.delete(handle as number);
    },
    pending: () => scheduled.size,
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...scheduled.entries()].filter(([, entry]) => entry.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        scheduled.delete(due[0]);
        now = due[1].at;
        due[1].callback();
        // Let the woken code run before the next timer fires.
        for (let turn = 0; turn < 20; turn++) await Promise.resolve();
      }
      now = until;
      for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    },
  };
}

/** Resolves after pending promise callbacks have run (enough turns for a few nested generators). */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 50; turn++) await Promise.resolve();
}

/** A terminal that yields one chunk and throws `error` from its `finally`, so closing it at that chunk fails. */
export function terminalFailingOnClose(error: Error): () => AsyncGenerator<ModelEvent, void, undefined> {
  return async function* terminal(): AsyncGenerator<ModelEvent, void, undefined> {
    try {
      yield chunk('a');
    } finally {
      // eslint-disable-next-line no-unsafe-finally -- the double fails while it closes, which is what it is for
      throw error;
    }
  };
}
