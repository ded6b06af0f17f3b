/**
 * The scripted model of the model terminal's tests: it answers each `next()`
 * of its stream as a scenario's step says (an event, a failure, a thenable, a
 * late answer) and logs what it is asked, so a test can compare what a
 * terminal made of it with what an async generator makes of it.
 */
import type { Model } from '../../src/agent/index';
import type { ConsumerCall } from './consumer-calls';

/** How the scripted model answers one `next()`. */
export type Step =
  'event' | 'reject' | 'throw' | 'plain' | 'null' | 'thenable' | 'thenableRejects' | 'unassemblable' | 'slow' | 'slowReject';
/** What the scripted model's `return()` does. */
export type Closing = 'resolves' | 'rejects' | 'missing';
/** One call of the consumer's; `abort` aborts the signal between calls, `nextThenAbort` aborts while the pull waits. */
export type Action = ConsumerCall | 'abort' | 'nextThenAbort';

/** One scenario: how the model answers each `next()`, how its `return()` does, and what the consumer calls. */
export interface Scenario {
  readonly steps: readonly Step[];
  readonly closing: Closing;
  readonly actions: readonly Action[];
}

/** The model's side of a run: the calls it received, in order. */
export type ModelLog = string[];

/** A model answering each `next()` as its step says, then ending; `log` records what it is asked. */
export function scriptedModel(scenario: Scenario, log: ModelLog): Model {
  return {
    stream() {
      log.push('stream');
      let index = 0;
      const iterator: Record<string, unknown> = {
        [Symbol.asyncIterator]: () => iterator,
        next: () => {
          const at = index++;
          log.push(`next ${at}`);
          const step = scenario.steps[at];
          const event = { type: 'textDelta', text: `word${at} ` };
          switch (step) {
            case undefined:
              return Promise.resolve({ value: undefined, done: true });
            case 'event':
              return Promise.resolve({ value: event, done: false });
            case 'reject':
              return Promise.reject(new Error(`model failed at ${at}`));
            case 'throw':
              throw new Error(`model threw at ${at}`);
            case 'plain':
              return { value: event, done: false };
            case 'null':
              return Promise.resolve(null);
            case 'thenable':
              return Promise.resolve({
                value: {
                  then: (resolve: (value: unknown) => void) => {
                    resolve(event);
                  },
                },
                done: false,
              });
            case 'thenableRejects':
              return Promise.resolve({
                value: {
                  then: (_: unknown, reject: (reason: unknown) => void) => {
                    reject(new Error(`event ${at} rejected`));
                  },
                },
                done: false,
              });
            case 'unassemblable': {
              // A usage with a cycle: the event goes out, and the result cannot be made.
              const usage: Record<string, unknown> = { toJSON: () => 'cyclic usage' };
              usage.self = usage;
              return Promise.resolve({ value: { type: 'usage', usage }, done: false });
            }
            case 'slowReject':
              // Fails late: after an abort while it waited, the failure must be ignored.
              return new Promise((_, reject) =>
                setTimeout(() => {
                  reject(new Error(`model failed late at ${at}`));
                }, 2),
              );
            default:
              // 'slow': settles late: after an abort while it waited, the settlement must be ignored.
              return new Promise((resolve) =>
                setTimeout(() => {
                  resolve({ value: event, done: false });
                }, 2),
              );
          }
        },
      };
      if (scenario.closing !== 'missing') {
        iterator.return = () => {
          log.push('return');
          return scenario.closing === 'resolves'
            ? Promise.resolve({ value: undefined, done: true })
            : Promise.reject(new Error('close failed'));
        };
      }
      return iterator as unknown as AsyncIterable<never>;
    },
  };
}
