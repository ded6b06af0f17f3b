/**
 * Wrap handler scripts of a chain case as real async generator functions:
 * calling `next()` and consuming inner chains in the ways the steps say.
 */
import type { HandlerCall } from '../../src/core/index';
import type { Returns, WrapStep } from '../cases/chain-steps';
import {
  abortInvoke,
  deliver,
  fill,
  isResultEvent,
  named,
  userError,
  type Environment,
  type Generator,
  type NextFunction,
} from './script-environment';

/** One activation of a Wrap handler: its context, `next`, run info and kept generators. */
interface Activation {
  /** The context the handler received. */
  readonly context: unknown;
  /** The `next` it received. */
  readonly next: NextFunction;
  /** Its `run.signal`. */
  readonly signal: AbortSignal;
  /** Its `run`. */
  readonly run: HandlerCall;
  /** Inner generators kept by name (`next.keep`). */
  readonly kept: Map<string, Generator>;
  /** The error the last `catch` or `retry` caught. */
  error: unknown;
}

/** A Wrap handler running `steps`. */
export function wrapHandler(
  steps: readonly WrapStep[],
  environment: Environment,
  fnName: string | undefined,
  finallyLabel: string | undefined,
  returns: Returns,
): (context: unknown, next: NextFunction, run: HandlerCall) => unknown {
  return named((context: unknown, next: NextFunction, run: HandlerCall): unknown => {
    const activation: Activation = { context, next, signal: run.signal, run, kept: new Map(), error: undefined };
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
    if ('record' in step)
      environment.trace.push(
        fill(step.record, { context: activation.context, error: activation.error, signal: activation.signal, run: activation.run }),
      );
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
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- an internal signal, caught below and never seen by a caller
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
