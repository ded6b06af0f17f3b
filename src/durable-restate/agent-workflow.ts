/**
 * The reference `Agent` as a Restate workflow: a `run` handler that runs the
 * agent durably with the invocation id as the run id, and the shared handlers
 * with which the outside world answers its human approvals and reads what it
 * waits for. Restate runs a workflow's `run` handler once per workflow key, so
 * two requests to start or resume the same run never both proceed.
 *
 * @packageDocumentation
 */
import type { Agent, AgentInput, AgentResultEvent, Message } from '../agent/index';
import { durableAgent, type DurableRunOptions, type JsonValue } from '../durable/index';
import { isObject } from '../util/is-object';
import { invalidRestateOption } from './errors';
import type { RestateContext, RestateWorkflowContext, RestateWorkflowSharedContext } from './restate-context';
import { restateStepRunner, WAITS_STATE_KEY, type RestateStepRunnerOptions } from './restate-step-runner';

/** Restate's error code for the resolution of a durable promise that is settled already. */
const ALREADY_COMPLETED = 409;

/** What a durable agent run in a Restate handler resolves to: JSON, as Restate returns it to the caller. */
export interface RestateAgentRun {
  /** The run's id: the invocation id. */
  readonly runId: string;
  /** The run's final agent result. */
  readonly result: AgentResultEvent;
  /** The agent's history after the run. */
  readonly messages: readonly Message[];
}

/**
 * Runs `agent` durably inside a Restate handler: every model call and tool
 * call is a `ctx.run` step named by the durable layer, tools get the
 * idempotency key `<invocation id>:<tool-use id>` on their context, and each
 * human approval (`interrupt()`) is a durable wait (see
 * {@link restateStepRunner}). Give it a new agent in every attempt (the
 * handler builds one): a replay starts from the same state the first
 * attempt started from.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a context that is not a Restate context (see
 *   {@link restateStepRunner}). The agent's and the durable layer's errors pass through unchanged; Restate retries
 *   the invocation on them, as its retry policy says.
 * @example
 * ```ts
 * import * as restate from '@restatedev/restate-sdk';
 *
 * const support = restate.workflow({
 *   name: 'support',
 *   handlers: { run: (ctx: restate.WorkflowContext, input: string) => runAgentInRestate(ctx, new Agent({ model, tools }), input) },
 * });
 * ```
 */
export async function runAgentInRestate(
  context: RestateContext,
  agent: Agent,
  input: AgentInput,
  options: DurableRunOptions & RestateStepRunnerOptions = {},
): Promise<RestateAgentRun> {
  const { publishWait, ...runOptions } = isObject(options) ? options : {};
  const runner = restateStepRunner(context, publishWait === undefined ? {} : { publishWait });
  const result = await durableAgent(agent, runner).invoke(input, runOptions);
  return { runId: runner.runId, result, messages: agent.messages };
}

/** The answer to one wait of a run, as the workflow's `answer` handler takes it. */
export interface WaitAnswer {
  /** The wait's name: the interrupt id (`executeTool:<tool-use id>:<name>`, `agentStream:<name>`). */
  readonly name: string;
  /** The response, as `interrupt()` returns it to the tool. */
  readonly value: JsonValue;
}

/** Options of {@link agentWorkflowHandlers}. */
export interface AgentWorkflowOptions {
  /** Builds the agent of one attempt of the run (called again in every attempt, so it must build the same agent). */
  readonly agent: (context: RestateWorkflowContext) => Agent;
  /** Options of every run (not the interrupt responses, which come from the waits). */
  readonly runOptions?: DurableRunOptions;
}

/** The handlers of an agent workflow; pass them to `restate.workflow({ name, handlers })`. */
export interface AgentWorkflowHandlers {
  /** Runs the agent on the input (the workflow's one exclusive handler). */
  run(context: RestateWorkflowContext, input: AgentInput): Promise<RestateAgentRun>;
  /** Answers the wait `name` of the run with `value` (a shared handler): `accepted` is false when the wait had its answer already, which stays. */
  answer(context: RestateWorkflowSharedContext, answer: WaitAnswer): Promise<{ readonly accepted: boolean }>;
  /** What the run waits for now, by wait name: each interrupt `{ id, name, reason }` (a shared handler). */
  waits(context: RestateWorkflowSharedContext): Promise<Readonly<Record<string, JsonValue>>>;
}

/**
 * The handlers of a Restate workflow that runs the reference agent durably
 * (see {@link runAgentInRestate}), keyed by the workflow key the caller
 * chooses: `run` starts it, `answer` resolves one of its durable waits from
 * outside (`POST <ingress>/<workflow>/<key>/answer` with `{ "name", "value" }`,
 * or {@link restateWaitSender}; the first answer to a wait wins), `waits` lists what it waits for. A second
 * `run` with the same key attaches to the first instead of running again.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `options.agent` is not a function.
 * @example
 * ```ts
 * import * as restate from '@restatedev/restate-sdk';
 *
 * const support = restate.workflow({ name: 'support', handlers: agentWorkflowHandlers({ agent: () => new Agent({ model, tools }) }) });
 * ```
 */
export function agentWorkflowHandlers(options: AgentWorkflowOptions): AgentWorkflowHandlers {
  const build = (isObject(options) ? options : {}).agent;
  if (typeof build !== 'function')
    throw invalidRestateOption('agentWorkflowHandlers', 'options.agent must be a function that builds the agent', build);
  const runOptions = options.runOptions ?? {};
  return Object.freeze({
    run: (context: RestateWorkflowContext, input: AgentInput) => runAgentInRestate(context, build(context), input, runOptions),
    async answer(context: RestateWorkflowSharedContext, answer: WaitAnswer): Promise<{ readonly accepted: boolean }> {
      const name = (isObject(answer) ? answer : {}).name;
      if (typeof name !== 'string' || name.length === 0)
        throw invalidRestateOption('answer', 'the answer must be { name: <interrupt id>, value: <response> }', answer);
      try {
        await context.promise<JsonValue>(name).resolve(answer.value);
        return { accepted: true };
      } catch (error) {
        // Restate refuses a second resolution of a durable promise with 409: the first answer stays, as MW-241 asks.
        if ((error as { code?: unknown } | null)?.code === ALREADY_COMPLETED) return { accepted: false };
        throw error;
      }
    },
    async waits(context: RestateWorkflowSharedContext): Promise<Readonly<Record<string, JsonValue>>> {
      return (await context.get<Record<string, JsonValue>>(WAITS_STATE_KEY)) ?? {};
    },
  });
}
