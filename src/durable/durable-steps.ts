/**
 * The durable layer of the agent stages (MW-242 – MW-249): a bundle whose
 * Wrap handlers, innermost on InvokeModelStage and ExecuteToolStage, run the
 * rest of the chain (the terminal: the model or the tool) once as one step of
 * a {@link StepRunner}, and on replay yield what the step recorded instead.
 *
 * Why the handler drives the chain itself while the step is open: the events
 * stream live to the consumer as the model produces them, and the step's
 * function only waits for the chain to end, so an engine journals one value
 * per call and the stream is never held back.
 *
 * @packageDocumentation
 */
import type { HandlerCall, Middleware, Next } from '../core/index';
import { ExecuteToolStage, InterruptSignal, InvokeModelStage } from '../agent/index';
import type { ExecuteToolContext, ExecuteToolEvent, InvokeModelContext, InvokeModelEvent } from '../agent/index';
import type { AttemptBoundaryEvent } from '../middleware/index';
import { isObject } from '../util/is-object';
import { invalidDurableOption } from './errors';
import {
  readStepRecord,
  recordError,
  recordEvent,
  recordInterrupts,
  replayError,
  replayEvent,
  replaySignal,
  STEP_FORMAT,
  type RecordedEvent,
  type StepOutcome,
  type StepRecord,
} from './step-record';
import type { JsonValue, StepRunner } from './types';

/**
 * Where the durable layer sits among Wrap handlers: inside every handler
 * registered with a lower `order` (every built-in's default is 0), so a
 * `retry` or `timeout` wraps the step and each of its attempts is a step of its own.
 */
export const DURABLE_ORDER = 1_000_000;

/** The handler name the durable layer's Wrap handlers and attempt boundaries carry. */
const HANDLER = 'durableSteps';

/** The step names of one run: deterministic, from the stage, the turn and the tool-use id (MW-243). */
class StepNames {
  #modelSteps = 0;
  readonly #uses = new Map<string, number>();

  /** The name of the next InvokeModelStage step: `invokeModel:<n>`, counting the run's model steps from 1. */
  model(): string {
    this.#modelSteps += 1;
    return this.#unique(`${InvokeModelStage.name}:${String(this.#modelSteps)}`);
  }

  /** The name of an ExecuteToolStage step: `executeTool:<turn>:<tool-use id>`, the turn being the count of model steps so far. */
  tool(toolUseId: string): string {
    return this.#unique(`${ExecuteToolStage.name}:${String(this.#modelSteps)}:${toolUseId}`);
  }

  /** `base` the first time, then `base#2`, `base#3`... (a tool call run again on a resume, a retried attempt). */
  #unique(base: string): string {
    const uses = (this.#uses.get(base) ?? 0) + 1;
    this.#uses.set(base, uses);
    return uses === 1 ? base : `${base}#${String(uses)}`;
  }
}

/** The state the durable layer keeps for one run. */
interface DurableRun {
  readonly runner: StepRunner;
  readonly names: StepNames;
  /** True while a step's chain runs: a durable invoke nested in it (a sub-agent's model call) is part of that step. */
  inStep: boolean;
}

/** A promise and its settle functions. */
interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

/** Why a step's chain stopped without an outcome: its consumer stopped reading, or the run was cancelled. */
class StepAbandoned extends Error {}

/**
 * Runs one invoke's inner chain as the step `name` (MW-242, MW-245): live, it
 * yields each event in its journal form as the chain yields it and records
 * them all when the chain ends; replayed, it yields the recorded events and
 * ends as the chain ended. Yields the events; what the chain threw (or the
 * replayed error) is thrown.
 */
async function* stepOf<TEvent>(
  run: DurableRun,
  name: string,
  stage: string,
  chain: () => AsyncGenerator<TEvent, void, undefined>,
  call: HandlerCall,
): AsyncGenerator<TEvent, void, undefined> {
  const where = { stage, step: name };
  const started = deferred<number>();
  const finished = deferred<StepRecord>();
  const step = run.runner.run(name, async ({ attempt }) => {
    started.resolve(attempt);
    return (await finished.promise) as unknown as JsonValue;
  });
  // A replay resolves `step` without starting the function; a live step starts it first.
  const first = await Promise.race([started.promise.then((attempt) => ({ attempt })), step.then((value) => ({ value }))]);
  if ('value' in first) {
    yield* replay<TEvent>(readStepRecord(first.value, run.runner.runId, name));
    return;
  }
  step.catch(() => undefined);
  const events: RecordedEvent[] = [];
  let outcome: StepOutcome | undefined;
  let thrown: unknown;
  run.inStep = true;
  try {
    if (first.attempt > 1) yield attemptBoundary(name, first.attempt) as TEvent;
    try {
      for await (const event of chain()) {
        const recorded = recordEvent(event, events.length, where);
        events.push(recorded);
        yield (recorded.error === undefined ? recorded.event : keepError(recorded, event)) as TEvent;
      }
      outcome = { kind: 'completed' };
    } catch (error) {
      if (call.signal.aborted || isJournalRefusal(error)) throw error;
      thrown = error;
      outcome = InterruptSignal.isInstance(error)
        ? { kind: 'interrupted', interrupts: recordInterrupts(error, where) }
        : { kind: 'threw', error: recordError(error, 'thrown', where) };
    }
  } finally {
    run.inStep = false;
    if (outcome === undefined) finished.reject(new StepAbandoned());
  }
  finished.resolve({ format: STEP_FORMAT, step: name, events, outcome });
  await step;
  if (outcome.kind !== 'completed') throw thrown;
}

/** True for the durable layer's own refusal (a value no journal keeps): it is not the step's outcome. */
function isJournalRefusal(error: unknown): boolean {
  return isObject(error) && (error as { code?: unknown }).code === 'ERR_NOT_JOURNALABLE';
}

/** A live event whose `error` field stays the very value the tool threw; the rest is its journal form. */
function keepError(recorded: RecordedEvent, event: unknown): unknown {
  return Object.freeze({ ...(recorded.event as object), error: (event as { readonly error: unknown }).error });
}

/** The recorded events, then the recorded end: nothing is called. */
function* replay<TEvent>(record: StepRecord): Generator<TEvent, void, undefined> {
  for (const recorded of record.events) yield replayEvent(recorded) as TEvent;
  const { outcome } = record;
  if (outcome.kind === 'threw') throw replayError(outcome.error);
  if (outcome.kind === 'interrupted') throw replaySignal(outcome.interrupts);
}

/** The event that voids what earlier, unfinished starts of a step streamed (MW-248). */
function attemptBoundary(step: string, attempt: number): AttemptBoundaryEvent {
  const error = new Error(
    `Durable step "${step}": attempt ${String(attempt - 1)} stopped with its process before it finished; its events are void.`,
  );
  error.name = 'StepAttemptLost';
  return Object.freeze({ type: 'attempt-boundary', handler: HANDLER, failedAttempt: attempt - 1, nextAttempt: attempt, error });
}

/**
 * The durable layer for one run of `runner` (MW-242): registers a Wrap
 * handler innermost on InvokeModelStage and on ExecuteToolStage (order
 * {@link DURABLE_ORDER}) that runs the model or the tool as one journaled
 * step, named deterministically (MW-243), and gives each tool call the
 * idempotency key `<runId>:<tool-use id>` (MW-249). Use one bundle per run:
 * it counts the run's steps.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `runner` has no `run`, `wait` and non-empty string `runId`.
 * @example
 * ```ts
 * const journal = new InMemoryJournal();
 * const result = await agent.invoke('Hello', { use: [durableSteps(journal.runner('run-1'))] });
 * ```
 */
export function durableSteps(runner: StepRunner): Middleware {
  checkRunner(runner, 'durableSteps');
  const run: DurableRun = { runner, names: new StepNames(), inStep: false };
  const runId = runner.runId;

  async function* durableModelStep(
    context: InvokeModelContext,
    next: Next<InvokeModelContext, InvokeModelEvent>,
    call: HandlerCall,
  ): AsyncGenerator<InvokeModelEvent, void, undefined> {
    if (run.inStep) {
      yield* next();
      return;
    }
    yield* stepOf(run, run.names.model(), InvokeModelStage.name, () => next(), call);
  }

  async function* durableToolStep(
    context: ExecuteToolContext,
    next: Next<ExecuteToolContext, ExecuteToolEvent>,
    call: HandlerCall,
  ): AsyncGenerator<ExecuteToolEvent, void, undefined> {
    const keyed: ExecuteToolContext = Object.freeze({ ...context, idempotencyKey: `${runId}:${context.toolUse.toolUseId}` });
    if (run.inStep) {
      yield* next(keyed);
      return;
    }
    yield* stepOf(run, run.names.tool(context.toolUse.toolUseId), ExecuteToolStage.name, () => next(keyed), call);
  }

  return Object.freeze({
    name: HANDLER,
    setup(registrar) {
      registrar.add(InvokeModelStage.Wrap, durableModelStep, { order: DURABLE_ORDER, next: 'at-most-once' });
      registrar.add(ExecuteToolStage.Wrap, durableToolStep, { order: DURABLE_ORDER, next: 'at-most-once' });
    },
  } satisfies Middleware);
}

/**
 * Checks a step runner argument.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming `caller`.
 */
export function checkRunner(runner: unknown, caller: string): asserts runner is StepRunner {
  const parts = (isObject(runner) ? runner : {}) as Partial<Record<keyof StepRunner, unknown>>;
  if (typeof parts.run !== 'function' || typeof parts.wait !== 'function' || typeof parts.runId !== 'string' || parts.runId.length === 0)
    throw invalidDurableOption(caller, 'runner must be a StepRunner { runId: string, run(name, fn), wait(name, request) }', runner);
}
