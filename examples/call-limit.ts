/**
 * The "One object per concern" example of docs/agent-kit.md: a limit on the
 * model calls of one run, written as LangChain's `createMiddleware` writes
 * its call-limit middleware, with `defineMiddleware`.
 */
import type { Middleware } from '../src/core/index';
import { defineMiddleware, type ModelResultEvent } from '../src/agent/index';

/** The error a run fails with at the limit when `exitBehavior` is `'error'`; it passes through the agent unchanged. */
export class CallLimitExceeded extends Error {
  override readonly name = 'CallLimitExceeded';
}

/** Options of {@link callLimit}. */
export interface CallLimitOptions {
  /** Model calls one run may make. */
  readonly runLimit: number;
  /** At the limit: end the run with a note (`'end'`, the default) or fail it (`'error'`). */
  readonly exitBehavior?: 'end' | 'error';
}

/** Ends (or fails) a run once its agent has called the model `runLimit` times; the calls of sub-agents and summaries are not counted. */
export function callLimit({ runLimit, exitBehavior = 'end' }: CallLimitOptions): Middleware {
  // One count per run: the invocation state is the run's own object, shared by reference by every call of the run.
  const calls = new WeakMap<object, number>();
  return defineMiddleware({
    name: 'callLimit',
    model: {
      wrap: {
        // Outside every other model handler, so that a retried call counts once.
        order: -100,
        handler: async function* (context, next) {
          if (context.caller !== undefined) return yield* next();
          const made = calls.get(context.invocationState) ?? 0;
          if (made < runLimit) {
            calls.set(context.invocationState, made + 1);
            return yield* next();
          }
          const note = `Model call limit reached: ${runLimit} per run.`;
          if (exitBehavior === 'error') throw new CallLimitExceeded(note);
          const ended: ModelResultEvent = {
            type: 'modelResult',
            message: { role: 'assistant', content: [{ type: 'text', text: note }] },
            stopReason: 'endTurn',
            usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          };
          yield ended;
        },
      },
    },
  });
}
