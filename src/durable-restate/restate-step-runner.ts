/**
 * The step contract of `staged-middleware/durable` over a Restate handler's
 * context: a step is `ctx.run(name, fn)`, a wait is the workflow's durable
 * promise `ctx.promise(name)` (or, outside a workflow, an awakeable whose id
 * is published in a step of its own), and the run id is the invocation id.
 *
 * Restate journals every `ctx.run` and replays the journal when it starts the
 * invocation again (after the endpoint's process died, or after a
 * suspension), so a finished step's function never runs twice; a step whose
 * process died before it finished runs again in the next attempt. A wait
 * suspends the invocation: no process holds it until the answer arrives.
 *
 * @packageDocumentation
 */
import type { JsonValue, StepAttempt, StepRunner } from '../durable/index';
import { isObject } from '../util/is-object';
import { invalidRestateOption } from './errors';
import type { RestateContext, RestateWorkflowContext } from './restate-context';

/** The workflow state key under which a run lists the waits it is blocked on, by name (see {@link pendingWaits}). */
export const WAITS_STATE_KEY = 'staged-middleware:waits';

/** A wait outside a workflow, as {@link RestateStepRunnerOptions.publishWait} receives it. */
export interface AwakeableWait {
  /** The wait's name: the interrupt id. */
  readonly name: string;
  /** The awakeable's id: resolve it with the answer (`POST /restate/awakeables/<id>/resolve`, or `ctx.resolveAwakeable(id, value)`). */
  readonly awakeableId: string;
  /** What the run asks: the interrupt `{ id, name, reason }`. */
  readonly request: JsonValue;
}

/** Options of {@link restateStepRunner}. */
export interface RestateStepRunnerOptions {
  /**
   * Makes each wait an awakeable and tells the outside world its id: store
   * it where your approval UI reads it. Runs as a journaled step, once per
   * wait. Required outside a workflow (a service or a virtual object, which
   * have no durable promises); without it, waits are the workflow's durable
   * promises named by the interrupt id.
   */
  readonly publishWait?: (wait: AwakeableWait) => Promise<void>;
}

function isWorkflowContext(context: RestateContext): context is RestateWorkflowContext {
  const parts = context as unknown as Partial<Record<'promise' | 'set' | 'get', unknown>>;
  return typeof parts.promise === 'function' && typeof parts.set === 'function' && typeof parts.get === 'function';
}

/**
 * A {@link StepRunner} over a Restate handler's context, for one invocation:
 * its `runId` is the invocation id (`ctx.request().id`), `run(name, fn)` is
 * `ctx.run(name, ...)`, and `wait(name, request)` is the workflow's durable
 * promise `name` (the request listed in the workflow's state under
 * {@link WAITS_STATE_KEY} while it waits), or, given `options.publishWait`
 * (in a service or a virtual object), an awakeable published with it. Restate cannot tell a step's
 * function how many starts died with their process, so `attempt` is always 1.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `context` is not a Restate context, when `publishWait` is given but
 *   not a function, or when a context without durable promises and state comes without `publishWait`.
 * @example
 * ```ts
 * const runner = restateStepRunner(ctx); // in a Restate workflow's run handler
 * const result = await agent.invoke('Refund order 42', { use: [durableSteps(runner)] });
 * ```
 */
export function restateStepRunner(context: RestateContext, options: RestateStepRunnerOptions = {}): StepRunner {
  const parts = (isObject(context) ? context : {}) as Partial<Record<keyof RestateContext, unknown>>;
  if (typeof parts.run !== 'function' || typeof parts.request !== 'function' || typeof parts.awakeable !== 'function')
    throw invalidRestateOption('restateStepRunner', 'context must be the context of a Restate handler (ctx)', context);
  const publishWait = (isObject(options) ? options : {}).publishWait;
  // The SDK's contexts share one implementation, so a service's context has `promise` too (failing when called):
  // publishWait is what says that waits are awakeables.
  const workflow = publishWait === undefined && isWorkflowContext(context) ? context : undefined;
  if (workflow === undefined && typeof publishWait !== 'function')
    throw invalidRestateOption(
      'restateStepRunner',
      'outside a workflow, options.publishWait must be a function that tells the outside world the awakeable of each wait',
      publishWait,
    );
  const runId = context.request().id;
  // A workflow's run handler lists its open waits in its state, so a shared handler can show them while it is suspended.
  const open: Record<string, JsonValue> = {};

  return Object.freeze({
    runId,
    async run<T extends JsonValue>(name: string, fn: (attempt: StepAttempt) => Promise<T>): Promise<T> {
      return await context.run(name, () => fn(Object.freeze({ attempt: 1 })));
    },
    async wait(name: string, request: JsonValue): Promise<JsonValue> {
      if (workflow !== undefined) {
        Object.defineProperty(open, name, { value: request, enumerable: true, writable: true, configurable: true });
        workflow.set(WAITS_STATE_KEY, open);
        const value = await workflow.promise<JsonValue>(name).get();
        delete open[name];
        workflow.set(WAITS_STATE_KEY, open);
        return value;
      }
      const { id, promise } = context.awakeable<JsonValue>();
      const publish = publishWait as (wait: AwakeableWait) => Promise<void>;
      await context.run(`${name}:awakeable`, async () => {
        await publish(Object.freeze({ name, awakeableId: id, request }));
        return null;
      });
      return await promise;
    },
  } satisfies StepRunner);
}
