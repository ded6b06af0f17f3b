/**
 * Checks of what `invoke()` and `run()` receive: the stage, the terminal, the
 * options object and its per-invoke registrations.
 *
 * @packageDocumentation
 */
import { invalidInvokeOptions, notAFunction, useForAnotherStage } from './messages';
import { createRegistration, stageOf, type StoredRegistration } from './registration';
import { isAbortSignal } from '../util/abort-signal';
import { describeValue } from '../util/describe-value';
import type { AddOptions, AnyStage, InvokeOptions, Registration } from './types';
import { isObject } from '../util/is-object';

/**
 * The options of an `invoke()` or `run()` called without any: one frozen object for every such call, where a
 * default of `{}` would allocate one per invoke.
 */
export const NO_INVOKE_OPTIONS: InvokeOptions = Object.freeze({});

/**
 * Checks the arguments of `invoke()` and `run()` before anything runs; `knownStage` when `stage` is already known
 * to be a genuine stage (the registry's chain cache holds it), which spares the stage check.
 *
 * @throws MiddlewareError `ERR_UNKNOWN_PHASE` when `stage` is not a stage, `ERR_INVALID_HANDLER` when `terminal` is
 *   not a function, `ERR_INVALID_OPTIONS` for options of the wrong shape.
 */
export function checkInvoke(stage: AnyStage, terminal: unknown, options: InvokeOptions, knownStage: boolean): void {
  if (!knownStage) stageOf(stage, 'registry.invoke');
  if (typeof terminal !== 'function') throw notAFunction({ stage: stage.name, phase: 'terminal', handler: 'terminal' }, terminal);
  checkInvokeOptions(stage.name, options);
}

/**
 * Rejects options of the wrong shape before anything runs. Runs on every
 * invoke, so it allocates nothing (not even a closure) when the options are valid.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the option and what it must be.
 */
export function checkInvokeOptions(stage: string, options: InvokeOptions): void {
  if (!isObject(options)) throw invalidInvokeOptions(stage, `options must be an object, got ${describeValue(options)}`);
  const signal = options.signal as unknown;
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw invalidInvokeOptions(stage, `options.signal must be an AbortSignal, got ${describeValue(signal)}`);
  }
  const state = options.state as unknown;
  if (
    state !== undefined &&
    (!isObject(state) || typeof (state as { get?: unknown }).get !== 'function' || typeof (state as { set?: unknown }).set !== 'function')
  ) {
    throw invalidInvokeOptions(stage, `options.state must be { get(), set(next) }, got ${describeValue(state)}`);
  }
  if (options.use !== undefined && !Array.isArray(options.use))
    throw invalidInvokeOptions(
      stage,
      `options.use must be an array of [target, handler, options?] tuples, got ${describeValue(options.use)}`,
    );
}

/**
 * Turns `InvokeOptions.use` into stored registrations, each checked like an
 * `add` and required to target the stage being invoked.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for an entry that is not a tuple or targets another stage;
 *   the codes of `add` for a bad handler or options.
 */
export function perInvokeRegistrations(stage: AnyStage, use: readonly Registration[]): StoredRegistration[] {
  return use.map((registration) => {
    if (!Array.isArray(registration)) {
      throw invalidInvokeOptions(
        stage.name,
        `options.use must be an array of [target, handler, options?] tuples, got an entry that is ${describeValue(registration)}`,
      );
    }
    const created = createRegistration(
      registration[0],
      registration[1],
      registration[2] as AddOptions | undefined,
      undefined,
      'invoke options.use',
    );
    if (created.stage !== stage) {
      throw useForAnotherStage({ stage: stage.name, phase: created.phase, handler: created.name }, created.stage.name);
    }
    return created;
  });
}
