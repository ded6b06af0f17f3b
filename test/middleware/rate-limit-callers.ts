/**
 * Callers of a rate limiter, for its tests: invokes started through a
 * registry, and activations of one limiter called directly, each recording
 * the clock when it starts.
 */
import { MiddlewareError, MiddlewareRegistry, type Next } from '../../src/core/index';
import type { rateLimit } from '../../src/middleware/index';
import { TextStage } from './fixtures';

const context = { prompt: 'hi' };

/** Starts `count` invokes through `registry` and records the clock when each terminal call starts. */
export function startMany(registry: MiddlewareRegistry, count: number, now: () => number, signal?: AbortSignal) {
  const starts: number[] = [];
  const terminal = async function* timed(): AsyncGenerator<string, void, undefined> {
    starts.push(now());
    yield 'done';
  };
  const runs = Array.from({ length: count }, () =>
    registry.run(TextStage, context, terminal, signal === undefined ? {} : { signal }).catch((error: unknown) => error),
  );
  return { starts, runs };
}

/** Activations of one limiter, called directly: each is named, and its start (its call of next()) is recorded with the clock. */
export function activations(limiter: ReturnType<typeof rateLimit>, now: () => number) {
  const starts: string[] = [];
  const outcomes = new Map<string, string>();
  const arrive = (name: string, signal: AbortSignal = new AbortController().signal): Promise<void> => {
    const next = async function* next(): AsyncGenerator<string, void, undefined> {
      starts.push(`${name}@${now()}`);
      yield name;
    };
    const events = limiter({}, next as Next<object, string>, { stage: TextStage, signal, handler: 'rateLimit' });
    return (async () => {
      try {
        for await (const _event of events);
        outcomes.set(name, 'started');
      } catch (error) {
        outcomes.set(name, MiddlewareError.isInstance(error) ? `${error.code} ${String(error.cause)}` : String(error));
      }
    })();
  };
  return { starts, outcomes, arrive };
}
