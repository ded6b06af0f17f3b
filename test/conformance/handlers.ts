/**
 * Turns the step scripts of a chain case into real handlers and terminals.
 *
 * Why scripts rather than code: a second implementation runs the same JSON
 * files, so every behaviour a case needs must be expressible as data.
 */
import { MiddlewareError, MiddlewareResult, splitSystemPrompt, toSystemBlocks, type SystemPrompt } from '../../src/index';
import { brand } from '../../src/util/brand';
import type { InputStep, OutputStep, TerminalStep, WrapStep } from './schema';

type Generator = AsyncGenerator<unknown, void, undefined>;
type NextFunction = (context?: unknown, options?: { signal?: AbortSignal }) => Generator;

/** What every script shares during one case. */
export interface Environment {
  /** The trace of recorded labels, in order. */
  readonly trace: string[];
  /** Every error a script threw, to check that errors arrive unchanged. */
  readonly userErrors: Set<unknown>;
  /** The invoke's controller, when the case gives the invoke a signal. */
  controller: AbortController | undefined;
  /** Local controllers for narrowed signals, by name. */
  readonly locals: Map<string, AbortController>;
  /** `next` functions kept for calling after the invoke settled. */
  readonly keptNexts: NextFunction[];
  /** The state binding's set(), for scripts that call it directly. */
  bindingSet: ((value: unknown) => void) | undefined;
}

/** Placeholders a recorded text may use. */
interface Values {
  readonly context?: unknown;
  readonly result?: unknown;
  readonly state?: unknown;
  readonly error?: unknown;
  readonly signal?: AbortSignal;
  readonly call?: number;
}

/** True for a result event of a guarded case stage: an object with `"result": true`. */
export function isResultEvent(event: unknown): boolean {
  return typeof event === 'object' && event !== null && (event as { result?: unknown }).result === true;
}

/** How an error is written into the trace: its code, or its message. */
export function errorText(error: unknown): string {
  if (MiddlewareError.isInstance(error)) return error.code;
  if (error instanceof Error) return error.message;
  return String(error);
}

function fill(text: string, values: Values): string {
  return text
    .replaceAll('{context}', () => JSON.stringify(values.context))
    .replaceAll('{result}', () => JSON.stringify(values.result))
    .replaceAll('{state}', () => JSON.stringify(values.state))
    .replaceAll('{error}', () => errorText(values.error))
    .replaceAll('{aborted}', () => String(values.signal?.aborted))
    .replaceAll('{call}', () => String(values.call));
}

/** A user error thrown by a case's script, remembered so the runner can check it arrives unchanged. */
export function userError(environment: Environment, message: string, properties?: Record<string, unknown>, interruptSignal?: boolean): Error {
  const error = Object.assign(new Error(message), properties);
  // Recorded as the agent kit records its interrupt signals, so the built-in middleware take it for one (MW-083, MW-201).
  if (interruptSignal === true) brand(error, 'interrupt-signal');
  environment.userErrors.add(error);
  return error;
}

function abortInvoke(environment: Environment, reason: string): void {
  if (environment.controller === undefined) throw new Error('A case aborts the invoke but gives it no signal: add "signal": {}.');
  environment.controller.abort(reason);
}

function named<T extends (...args: never[]) => unknown>(fn: T, name: string | undefined): T {
  Object.defineProperty(fn, 'name', { value: name ?? '' });
  return fn;
}

/** An Input handler running `steps`. */
export function inputHandler(steps: readonly InputStep[], environment: Environment, fnName: string | undefined, isAsync: boolean): (context: unknown) => unknown {
  return named((context: unknown): unknown => {
    let current = context;
    let returned: unknown = current;
    for (const step of steps) {
      if ('record' in step) environment.trace.push(fill(step.record, { context: current }));
      else if ('throw' in step) throw userError(environment, step.throw, step.with, step.interruptSignal);
      else if ('abort' in step) abortInvoke(environment, step.abort);
      else if ('set' in step) current = { ...(current as object), ...step.set };
      else if ('return' in step) current = step.return === 'null' ? null : undefined;
      else if ('toSystemBlocks' in step) current = { ...(current as object), [step.toSystemBlocks]: toSystemBlocks((current as Record<string, SystemPrompt>)[step.toSystemBlocks] as SystemPrompt) };
      else current = { ...(current as object), [step.splitSystemPrompt]: splitSystemPrompt((current as Record<string, SystemPrompt>)[step.splitSystemPrompt] as SystemPrompt) };
      returned = current;
    }
    return isAsync ? Promise.resolve(returned) : returned;
  }, fnName);
}

/** An Output handler running `steps`. */
export function outputHandler(steps: readonly OutputStep[], environment: Environment, fnName: string | undefined, isAsync: boolean): (result: MiddlewareResult<unknown>) => unknown {
  return named((received: MiddlewareResult<unknown>): unknown => {
    let current: unknown = received;
    for (const step of steps) {
      const value = MiddlewareResult.isInstance(current) ? current.value : current;
      if ('record' in step) environment.trace.push(fill(step.record, { result: value }));
      else if ('throw' in step) throw userError(environment, step.throw, step.with, step.interruptSignal);
      else if ('abort' in step) abortInvoke(environment, step.abort);
      else if ('replace' in step) current = (current as MiddlewareResult<unknown>).replace(step.replace);
      else if ('update' in step) current = (current as MiddlewareResult<unknown>).update((draft) => void Object.assign(draft as object, step.update));
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

/** How a handler returns the events its script produces. */
export type Returns = 'generator' | 'iterable' | 'no-return' | 'sync-next' | 'promise' | 'array' | 'number' | undefined;

function deliver(make: () => Generator, returns: Returns): unknown {
  switch (returns) {
    case 'iterable':
      // An async iterable that is not a generator: the library must adapt it.
      return { [Symbol.asyncIterator]: () => make() };
    case 'no-return': {
      // An async iterator with next() only: the library adapts it and cannot close it.
      const generator = make();
      const iterator = { [Symbol.asyncIterator]: () => iterator, next: () => generator.next() };
      return iterator;
    }
    case 'promise':
      return Promise.resolve([]);
    case 'array':
      return [];
    case 'number':
      return 42;
    default:
      return make();
  }
}

/**
 * A terminal call as a hand-written async iterator whose `next()` runs the
 * script synchronously: it returns plain `{ value, done }` results, not
 * promises, and a `throw` step throws from `next()` itself.
 */
function synchronousCall(steps: readonly TerminalStep[], environment: Environment, finallyLabel: string | undefined, values: Values & { readonly state: unknown }): unknown {
  const generator = (function* synchronousSteps(): Iterator<unknown, void, undefined> {
    try {
      for (const step of steps) {
        if ('record' in step) environment.trace.push(fill(step.record, values));
        else if ('throw' in step) throw userError(environment, step.throw);
        else if ('abort' in step) abortInvoke(environment, step.abort);
        else if ('yield' in step) yield step.yield;
        else if ('yieldUndefined' in step) yield undefined;
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

/** A terminal running the script of each call (calls past the end repeat the last script). */
export function terminal(calls: readonly (readonly TerminalStep[])[], environment: Environment, finallyLabel: string | undefined, returns: Returns) {
  let count = 0;
  return (context: unknown, run: { signal: AbortSignal; state: unknown }): unknown => {
    const call = ++count;
    const steps = calls[Math.min(call, calls.length) - 1] as readonly TerminalStep[];
    if (returns === 'sync-next') return synchronousCall(steps, environment, finallyLabel, { context, state: run.state, signal: run.signal, call });
    return deliver(async function* terminalCall(): Generator {
      try {
        for (const step of steps) {
          const values = { context, state: run.state, signal: run.signal, call };
          if ('record' in step) environment.trace.push(fill(step.record, values));
          else if ('throw' in step) throw userError(environment, step.throw, step.with, step.interruptSignal);
          else if ('abort' in step) abortInvoke(environment, step.abort);
          else if ('yield' in step) yield step.yield;
          else if ('yieldUndefined' in step) yield undefined;
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
              else run.signal.addEventListener('abort', () => resolve(), { once: true });
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

/** One activation of a Wrap handler: its context, `next`, run info and kept generators. */
interface Activation {
  readonly context: unknown;
  readonly next: NextFunction;
  readonly signal: AbortSignal;
  readonly kept: Map<string, Generator>;
  error: unknown;
}

/** A Wrap handler running `steps`. */
export function wrapHandler(steps: readonly WrapStep[], environment: Environment, fnName: string | undefined, finallyLabel: string | undefined, returns: Returns) {
  return named((context: unknown, next: NextFunction, run: { signal: AbortSignal }): unknown => {
    const activation: Activation = { context, next, signal: run.signal, kept: new Map(), error: undefined };
    return deliver(async function* wrapActivation(): Generator {
      try {
        yield* runSteps(steps, activation, environment);
      } catch (error) {
        if (error !== RETURN) throw error;
      } finally {
        if (finallyLabel !== undefined) environment.trace.push(finallyLabel);
      }
    }, returns);
  }, fnName);
}

/** Thrown by `{ "return": true }` to end the handler from any depth. */
const RETURN = Symbol('return');

async function* runSteps(steps: readonly WrapStep[], activation: Activation, environment: Environment): Generator {
  for (const step of steps) {
    if ('record' in step) environment.trace.push(fill(step.record, { context: activation.context, error: activation.error, signal: activation.signal }));
    else if ('throw' in step) throw userError(environment, step.throw, step.with, step.interruptSignal);
    else if ('abort' in step) abortInvoke(environment, step.abort);
    else if ('abortLocal' in step) local(environment, step.abortLocal).abort('local');
    else if ('yield' in step) yield step.yield;
    else if ('next' in step) yield* consume(step.next, activation, environment);
    else if ('pull' in step) {
      const generator = kept(activation, step.pull);
      for (let index = 0; index < (step.count ?? 1); index++) {
        const pulled = await generator.next();
        if (pulled.done === true) break;
        if (step.forward !== false) yield pulled.value;
      }
    } else if ('interleave' in step) yield* interleave(step.interleave.map((name) => kept(activation, name)));
    else if ('close' in step) await kept(activation, step.close).return(undefined);
    else if ('try' in step) yield* attempt(step, activation, environment);
    else if ('rethrow' in step) throw activation.error;
    else if ('repeat' in step) for (let index = 0; index < step.repeat; index++) yield* runSteps(step.steps, activation, environment);
    else if ('retry' in step) yield* retry(step.retry, step.steps, activation, environment);
    else if ('keepNext' in step) environment.keptNexts.push(activation.next);
    else throw RETURN;
  }
}

async function* attempt(step: Extract<WrapStep, { try: unknown }>, activation: Activation, environment: Environment): Generator {
  try {
    yield* runSteps(step.try, activation, environment);
  } catch (error) {
    if (error === RETURN || step.catch === undefined) throw error;
    activation.error = error;
    yield* runSteps(step.catch, activation, environment);
  } finally {
    if (step.finally !== undefined) yield* runSteps(step.finally, activation, environment);
  }
}

async function* retry(attempts: number, steps: readonly WrapStep[], activation: Activation, environment: Environment): Generator {
  for (let index = 1; ; index++) {
    try {
      yield* runSteps(steps, activation, environment);
      return;
    } catch (error) {
      if (error === RETURN || index >= attempts) throw error;
      activation.error = error;
    }
  }
}

function local(environment: Environment, name: string): AbortController {
  let controller = environment.locals.get(name);
  if (controller === undefined) {
    controller = new AbortController();
    environment.locals.set(name, controller);
  }
  return controller;
}

function kept(activation: Activation, name: string): Generator {
  const generator = activation.kept.get(name);
  if (generator === undefined) throw new Error(`A case pulls from "${name}", which no next step kept.`);
  return generator;
}

async function* consume(spec: Extract<WrapStep, { next: unknown }>['next'], activation: Activation, environment: Environment): Generator {
  const context = spec.context === undefined ? undefined : { ...(activation.context as object), ...spec.context };
  let signal: AbortSignal | undefined;
  if (spec.signal === 'aborted') signal = AbortSignal.abort('narrowed');
  else if (spec.signal !== undefined) signal = local(environment, spec.signal).signal;
  let generator: Generator;
  if ('rawOptions' in spec) generator = activation.next(context, spec.rawOptions as never);
  else generator = signal === undefined ? activation.next(context) : activation.next(context, { signal });
  if (spec.keep !== undefined) {
    activation.kept.set(spec.keep, generator);
    return;
  }
  const plain = (spec.forward ?? 'all') === 'all' && spec.drop === undefined && spec.mapResult === undefined && spec.abandon !== true;
  if (plain) {
    yield* generator;
    return;
  }
  const limit = spec.forward === 'all' || spec.forward === undefined ? Infinity : spec.forward;
  let count = 0;
  let done = false;
  try {
    while (count < limit) {
      const pulled = await generator.next();
      if (pulled.done === true) {
        done = true;
        break;
      }
      count++;
      const event = pulled.value;
      const result = isResultEvent(event);
      if (spec.drop === 'all' || (spec.drop === 'results' && result) || (spec.drop === 'nonResults' && !result)) continue;
      yield result && spec.mapResult !== undefined ? { ...(event as object), ...spec.mapResult } : event;
    }
  } finally {
    if (!done && spec.abandon !== true) await generator.return(undefined);
  }
}

async function* interleave(generators: readonly Generator[]): Generator {
  const open = new Set(generators);
  while (open.size > 0) {
    for (const generator of generators) {
      if (!open.has(generator)) continue;
      const pulled = await generator.next();
      if (pulled.done === true) open.delete(generator);
      else yield pulled.value;
    }
  }
}
