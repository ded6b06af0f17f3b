/**
 * Input, Output and terminal scripts of a chain case as real functions.
 *
 * Why scripts rather than code: a second implementation runs the same JSON
 * files, so every behaviour a case needs must be expressible as data.
 */
import { MiddlewareResult, splitSystemPrompt, toSystemBlocks, type HandlerCall, type SystemPrompt } from '../../src/core/index';
import type { InputStep, OutputStep, Returns, TerminalStep } from '../cases/chain-steps';
import {
  abortInvoke,
  deliver,
  fill,
  named,
  opaqueValue,
  userError,
  type Environment,
  type Generator,
  type Values,
} from './script-environment';

/** An Input handler running `steps`. */
export function inputHandler(
  steps: readonly InputStep[],
  environment: Environment,
  fnName: string | undefined,
  isAsync: boolean,
): (context: unknown, run: HandlerCall) => unknown {
  return named((context: unknown, run: HandlerCall): unknown => {
    let current = context;
    let returned: unknown = current;
    for (const step of steps) {
      if ('record' in step) environment.trace.push(fill(step.record, { context: current, signal: run.signal, run }));
      else if ('throw' in step) throw userError(environment, step.throw, step.with, step.interruptSignal);
      else if ('abort' in step) abortInvoke(environment, step.abort);
      else if ('set' in step) current = { ...(current as object), ...step.set };
      else if ('return' in step) current = step.return === 'null' ? null : undefined;
      else if ('toSystemBlocks' in step)
        current = {
          ...(current as object),
          [step.toSystemBlocks]: toSystemBlocks((current as Record<string, SystemPrompt>)[step.toSystemBlocks] as SystemPrompt),
        };
      else
        current = {
          ...(current as object),
          [step.splitSystemPrompt]: splitSystemPrompt((current as Record<string, SystemPrompt>)[step.splitSystemPrompt] as SystemPrompt),
        };
      returned = current;
    }
    return isAsync ? Promise.resolve(returned) : returned;
  }, fnName);
}

/** An Output handler running `steps`. */
export function outputHandler(
  steps: readonly OutputStep[],
  environment: Environment,
  fnName: string | undefined,
  isAsync: boolean,
): (result: MiddlewareResult<unknown>, run: HandlerCall) => unknown {
  return named((received: MiddlewareResult<unknown>, run: HandlerCall): unknown => {
    let current: unknown = received;
    for (const step of steps) {
      const value = MiddlewareResult.isInstance(current) ? current.value : current;
      if ('record' in step) environment.trace.push(fill(step.record, { result: value, signal: run.signal, run }));
      else if ('throw' in step) throw userError(environment, step.throw, step.with, step.interruptSignal);
      else if ('abort' in step) abortInvoke(environment, step.abort);
      else if ('replace' in step) current = (current as MiddlewareResult<unknown>).replace(step.replace);
      else if ('update' in step)
        current = (current as MiddlewareResult<unknown>).update((draft) => void Object.assign(draft as object, step.update));
      else if ('updateReturn' in step) current = (current as MiddlewareResult<unknown>).update(() => step.updateReturn);
      else if ('returnRaw' in step) current = step.returnRaw;
      else if ('mutate' in step) {
        try {
          Object.assign(value as object, step.mutate);
          environment.trace.push('mutate:applied');
        } catch {
          environment.trace.push('mutate:rejected');
        }
      } else environment.trace.push(`${step.recordOriginal}=${JSON.stringify(received.value)}`);
    }
    return isAsync ? Promise.resolve(current) : current;
  }, fnName);
}

/**
 * A terminal call as a hand-written async iterator whose `next()` runs the
 * script synchronously: it returns plain `{ value, done }` results, not
 * promises, and a `throw` step throws from `next()` itself.
 */
function synchronousCall(
  steps: readonly TerminalStep[],
  environment: Environment,
  finallyLabel: string | undefined,
  values: Values & { readonly state: unknown },
): unknown {
  const generator = (function* synchronousSteps(): Iterator<unknown, void, undefined> {
    try {
      for (const step of steps) {
        if ('record' in step) environment.trace.push(fill(step.record, values));
        else if ('throw' in step) throw userError(environment, step.throw, step.with, step.interruptSignal);
        else if ('abort' in step) abortInvoke(environment, step.abort);
        else if ('yield' in step) yield step.yield;
        else if ('yieldUndefined' in step) yield undefined;
        else if ('yieldOpaque' in step) yield opaqueValue(environment, step.yieldOpaque);
        else if ('echo' in step) yield { result: true, context: values.context };
        else if ('state' in step) {
          const draft = values.state as Record<string, unknown>;
          Object.assign(draft, step.state.set ?? {});
          for (const key of step.state.delete ?? []) delete draft[key];
        } else if ('bindingSet' in step) environment.bindingSet?.(step.bindingSet);
        else throw new Error('A "sync-next" terminal cannot wait: use only steps that run synchronously.');
      }
    } finally {
      if (finallyLabel !== undefined) environment.trace.push(`${finallyLabel}#${String(values.call)}`);
    }
  })();
  const iterator = {
    [Symbol.asyncIterator]: () => iterator,
    next: () => generator.next(),
    return: () => (generator.return as (value?: undefined) => IteratorResult<unknown, void>)(undefined),
  };
  return iterator;
}

/** An async iterator of the one event `value`, which `yield*` hands on without awaiting it. */
function unawaited(value: unknown): AsyncIterableIterator<unknown> {
  let done = false;
  const iterator: AsyncIterableIterator<unknown> = {
    [Symbol.asyncIterator]: () => iterator,
    next: () => {
      const answer: IteratorResult<unknown> = done ? { value: undefined, done: true } : { value, done: false };
      done = true;
      return Promise.resolve(answer);
    },
  };
  return iterator;
}

/** A terminal running the script of each call (calls past the end repeat the last script). */
export function terminal(
  calls: readonly (readonly TerminalStep[])[],
  environment: Environment,
  finallyLabel: string | undefined,
  returns: Returns,
): (context: unknown, run: { signal: AbortSignal; state: unknown }) => unknown {
  let count = 0;
  return (context: unknown, run: { signal: AbortSignal; state: unknown }): unknown => {
    const call = ++count;
    const steps = calls[Math.min(call, calls.length) - 1] as readonly TerminalStep[];
    if (returns === 'sync-next')
      return synchronousCall(steps, environment, finallyLabel, { context, state: run.state, signal: run.signal, call });
    return deliver(async function* terminalCall(): Generator {
      try {
        for (const step of steps) {
          const values = { context, state: run.state, signal: run.signal, call };
          if ('record' in step) environment.trace.push(fill(step.record, values));
          else if ('throw' in step) throw userError(environment, step.throw, step.with, step.interruptSignal);
          else if ('abort' in step) abortInvoke(environment, step.abort);
          else if ('yield' in step) yield step.yield;
          else if ('yieldUndefined' in step) yield undefined;
          // Through a one-event iterator: `yield` in an async generator would await a promise or thenable.
          else if ('yieldOpaque' in step) yield* unawaited(opaqueValue(environment, step.yieldOpaque));
          else if ('echo' in step) yield { result: true, context };
          else if ('state' in step) {
            const draft = run.state as Record<string, unknown>;
            Object.assign(draft, step.state.set ?? {});
            for (const key of step.state.delete ?? []) delete draft[key];
          } else if ('bindingSet' in step) environment.bindingSet?.(step.bindingSet);
          else if ('stall' in step) await new Promise<void>((resolve) => setTimeout(resolve, step.stall));
          else {
            await new Promise<void>((resolve) => {
              if (run.signal.aborted) resolve();
              else
                run.signal.addEventListener(
                  'abort',
                  () => {
                    resolve();
                  },
                  { once: true },
                );
            });
            throw run.signal.reason;
          }
        }
      } finally {
        if (finallyLabel !== undefined) environment.trace.push(`${finallyLabel}#${call}`);
      }
    }, returns);
  };
}
