/**
 * Runs one generated scenario through the library or through the reference
 * interpreter and records everything observable as plain data.
 */
import { MiddlewareError, MiddlewareRegistry, createStage, type AddOptions, type Registration, type Target } from '../../src/core/index';
import { referenceInvoke } from './reference';
import {
  ReferenceEngineError,
  ReferenceScope,
  referenceRegistration,
  referenceResolve,
  type ReferenceRegistration,
} from './reference-registry';
import {
  UserError,
  buildHandler,
  buildTerminal,
  initialState,
  stageOptionsOf,
  type RegistrationSpec,
  type RunEnvironment,
  type Scenario,
} from './scenario';

/** How a run ended, as data. */
export type Ending =
  | { readonly kind: 'done' }
  | { readonly kind: 'closed' }
  | { readonly kind: 'error'; readonly code: string; readonly cause?: unknown }
  | { readonly kind: 'user-error'; readonly message: string };

/** Everything observable of one run. */
export interface Observed {
  /** Outcome of each `add` in order: `ok` or an error code; per-invoke ones are `use`. */
  readonly adds: readonly string[];
  /** Warnings as `handler>id`, sorted. */
  readonly warnings: readonly string[];
  /** Handler labels and consumer deliveries (`c:<event>`), in order. */
  readonly trace: readonly string[];
  /** Values given to `state.set`. */
  readonly writes: readonly unknown[];
  readonly ending: Ending;
}

/** One run's observation plus the raw error, for identity checks. */
export interface Run {
  readonly observed: Observed;
  readonly error: unknown;
  readonly environment: RunEnvironment;
}

const ABORT_REASON = new Error('consumer aborted');

function ending(error: unknown): Ending {
  if (error instanceof UserError) return { kind: 'user-error', message: error.message };
  if (MiddlewareError.isInstance(error)) {
    return error.code === 'ERR_ABORTED' ? { kind: 'error', code: error.code, cause: error.cause } : { kind: 'error', code: error.code };
  }
  if (error instanceof ReferenceEngineError) {
    return error.code === 'ERR_ABORTED' ? { kind: 'error', code: error.code, cause: error.cause } : { kind: 'error', code: error.code };
  }
  return { kind: 'error', code: `unexpected ${String(error)}` };
}

function optionsOf(spec: RegistrationSpec, index: number): AddOptions {
  return {
    name: `h${index}`,
    ...(spec.order === undefined ? {} : { order: spec.order }),
    ...(spec.id === undefined ? {} : { id: spec.id }),
    ...(spec.before.length === 0 ? {} : { before: spec.before }),
    ...(spec.after.length === 0 ? {} : { after: spec.after }),
    ...(spec.replace ? { replace: true } : {}),
    ...(spec.phase === 'wrap' && spec.next !== 'many' ? { next: spec.next } : {}),
  };
}

async function consume(
  scenario: Scenario,
  events: AsyncGenerator<unknown, void, undefined>,
  controller: AbortController,
  trace: string[],
): Promise<{ ending: Ending; error: unknown }> {
  const consumer = scenario.consumer;
  let delivered = 0;
  try {
    for (;;) {
      const pulled = await events.next();
      if (pulled.done === true) return { ending: { kind: 'done' }, error: undefined };
      trace.push(`c:${String(pulled.value)}`);
      delivered++;
      if (consumer.kind === 'break' && delivered >= consumer.after) {
        await events.return(undefined);
        trace.push('c:closed');
        return { ending: { kind: 'closed' }, error: undefined };
      }
      if (consumer.kind === 'abort' && delivered === consumer.after) controller.abort(ABORT_REASON);
    }
  } catch (error) {
    return { ending: ending(error), error };
  }
}

function stateBinding(scenario: Scenario, writes: unknown[], trace: string[]) {
  if (!scenario.state) return undefined;
  return {
    get: () => initialState(),
    set: (next: unknown) => {
      trace.push('state:set');
      writes.push(next);
    },
  };
}

/** Runs a scenario through the library. */
export async function runLibrary(scenario: Scenario): Promise<Run> {
  const environment: RunEnvironment = { trace: [], thrown: [] };
  const warnings: string[] = [];
  const writes: unknown[] = [];
  const adds: string[] = [];
  const root = new MiddlewareRegistry({
    onWarning: (warning) => warnings.push(`${warning.handler}>${warning.code === 'WARN_UNKNOWN_ID' ? warning.id : warning.code}`),
  });
  const child = root.child();
  if (scenario.instrumented) {
    root.instrument({
      name: 'transparent',
      invoke: () => ({
        layer: async function* observed(_info, events) {
          yield* events;
        },
        handlerStart: () => undefined,
        handlerEnd: () => undefined,
        end: () => undefined,
      }),
    });
  }
  const stage = createStage<string, string, unknown>('model', stageOptionsOf(scenario, environment) as never);
  const use: Registration[] = [];
  scenario.registrations.forEach((spec, index) => {
    const target = (spec.phase === 'input' ? stage.Input : spec.phase === 'output' ? stage.Output : stage.Wrap) as Target;
    const handler = buildHandler(spec, index, environment) as never;
    if (spec.level === 'invoke') {
      use.push([target, handler, optionsOf(spec, index)] as unknown as Registration);
      adds.push('use');
      return;
    }
    try {
      (spec.level === 'root' ? root : child).add(target, handler, optionsOf(spec, index));
      adds.push('ok');
    } catch (error) {
      adds.push(MiddlewareError.isInstance(error) ? error.code : `unexpected ${String(error)}`);
    }
  });
  const controller = new AbortController();
  const state = stateBinding(scenario, writes, environment.trace);
  let result: { ending: Ending; error: unknown };
  try {
    const events = child.invoke(stage, 'c', buildTerminal(scenario.terminal, environment) as never, {
      signal: controller.signal,
      ...(state === undefined ? {} : { state }),
      ...(use.length === 0 ? {} : { use }),
    });
    result = await consume(scenario, events, controller, environment.trace);
  } catch (error) {
    result = { ending: ending(error), error };
  }
  return {
    observed: { adds, warnings: warnings.sort(), trace: environment.trace, writes, ending: result.ending },
    error: result.error,
    environment,
  };
}

/** Runs a scenario through the reference interpreter. */
export async function runReference(scenario: Scenario): Promise<Run> {
  const environment: RunEnvironment = { trace: [], thrown: [] };
  const warnings: string[] = [];
  const writes: unknown[] = [];
  const adds: string[] = [];
  const root = new ReferenceScope(undefined);
  const child = new ReferenceScope(root);
  const options = stageOptionsOf(scenario, environment);
  const perInvoke: RegistrationSpec[] = [];
  const perInvokeHandlers: ((...args: never[]) => unknown)[] = [];
  const registration = (spec: RegistrationSpec, index: number, handler: (...args: never[]) => unknown): ReferenceRegistration =>
    referenceRegistration({
      phase: spec.phase,
      handler,
      name: `h${index}`,
      id: spec.id,
      order: spec.order,
      before: spec.before,
      after: spec.after,
      next: spec.phase === 'wrap' ? spec.next : 'many',
      replace: spec.replace,
    });
  const indexes: number[] = [];
  scenario.registrations.forEach((spec, index) => {
    const handler = buildHandler(spec, index, environment);
    if (spec.level === 'invoke') {
      perInvoke.push(spec);
      perInvokeHandlers.push(handler);
      indexes.push(index);
      adds.push('use');
      return;
    }
    try {
      (spec.level === 'root' ? root : child).add(registration(spec, index, handler));
      adds.push('ok');
    } catch (error) {
      adds.push((error as ReferenceEngineError).code);
    }
  });
  const controller = new AbortController();
  const state = stateBinding(scenario, writes, environment.trace);
  let result: { ending: Ending; error: unknown };
  try {
    const invokeLevel = perInvoke.map((spec, position) =>
      registration(spec, indexes[position] as number, perInvokeHandlers[position] as never),
    );
    const levels =
      invokeLevel.length === 0 ? [root.registrations, child.registrations] : [root.registrations, child.registrations, invokeLevel];
    const chain = referenceResolve(levels, warnings);
    const events = referenceInvoke(
      { isResult: options.isResult, contextSchema: options.context, resultSchema: options.result, token: undefined },
      chain,
      'c',
      buildTerminal(scenario.terminal, environment) as never,
      { signal: controller.signal, state: state },
    );
    result = await consume(scenario, events, controller, environment.trace);
  } catch (error) {
    result = { ending: ending(error), error };
  }
  return {
    observed: { adds, warnings: warnings.sort(), trace: environment.trace, writes, ending: result.ending },
    error: result.error,
    environment,
  };
}

export { ABORT_REASON };
