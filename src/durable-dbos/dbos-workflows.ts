/**
 * Durable runs as DBOS workflows: a run is one workflow whose id is the run
 * id, so starting it again with the same id, in any process on the same
 * system database, replays its journal and goes on; DBOS recovers the runs
 * of a process that died when a process of the same executor launches, and
 * hands each run to one process at a time.
 *
 * @packageDocumentation
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Agent, AgentInput, AgentResultEvent } from '../agent/index';
import { durableAgent, type DurableRunOptions, type StepRunner } from '../durable/index';
import { invalidDurableOption } from '../durable/errors';
import { dbosStepRunner, type DbosStepRunnerOptions } from './dbos-step-runner';

/** A durable run registered as a DBOS workflow; see {@link registerDurableWorkflow}. */
export interface DurableWorkflow<TInput, TOutput> {
  /** The workflow's name in DBOS: stable across deployments, since a recovering process finds the run's code by it. */
  readonly name: string;
  /**
   * Runs `runId` to its end and resolves to its output: starts the workflow
   * when the run id is new; otherwise waits for the run (a finished run's
   * recorded output at once; a run another process holds when that process
   * finishes it; a run whose process died when DBOS recovers it, which
   * `DBOS.launch()` does for the runs of its executor).
   */
  run(runId: string, input: TInput): Promise<TOutput>;
}

/**
 * Registers `body` as the DBOS workflow `name`: each run gets the
 * {@link dbosStepRunner} of its workflow, for a framework's own loop to run
 * its stages with `durableSteps(runner)` and its interrupts with
 * `awaitInterrupts(runner, ...)`. What `body` does outside steps must replay
 * identically. Register before `DBOS.launch()`, as every DBOS workflow.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a `name` that is not a non-empty string or a `body` that is not a function.
 * @example
 * ```ts
 * const shout = registerDurableWorkflow('shout', async (runner, text: string) => runner.run('upper-case', () => Promise.resolve(text.toUpperCase())));
 * await DBOS.launch();
 * const loud = await shout.run('shout-7', 'hello');
 * ```
 */
export function registerDurableWorkflow<TInput, TOutput>(
  name: string,
  body: (runner: StepRunner, input: TInput) => Promise<TOutput>,
  options: DbosStepRunnerOptions = {},
): DurableWorkflow<TInput, TOutput> {
  if (typeof name !== 'string' || name.length === 0)
    throw invalidDurableOption('registerDurableWorkflow', 'name must be a non-empty string', name);
  if (typeof body !== 'function')
    throw invalidDurableOption('registerDurableWorkflow', 'body must be a function (runner, input) => Promise<output>', body);
  const workflow = DBOS.registerWorkflow((input: TInput) => body(dbosStepRunner(options), input), { name });
  return Object.freeze({
    name,
    async run(runId: string, input: TInput): Promise<TOutput> {
      if (typeof runId !== 'string' || runId.length === 0)
        throw invalidDurableOption(`${name}.run`, 'runId must be a non-empty string', runId);
      const known = await DBOS.getWorkflowStatus(runId);
      const handle =
        known === null ? await DBOS.startWorkflow(workflow, { workflowID: runId })(input) : DBOS.retrieveWorkflow<TOutput>(runId);
      return handle.getResult();
    },
  });
}

/** Options of {@link registerDurableAgent}. */
export interface DurableAgentWorkflowOptions extends DbosStepRunnerOptions {
  /** The workflow's name in DBOS. */
  readonly name: string;
  /** Makes the agent of one run, with a fresh history: called once in each process that runs or replays the run. */
  readonly agent: () => Agent | Promise<Agent>;
  /** Options of each run (the interrupt responses come from the run's waits). */
  readonly runOptions?: DurableRunOptions;
}

/**
 * Registers the reference `Agent` as the DBOS workflow `options.name`: each
 * run is `durableAgent(agent, dbosStepRunner())`, so every model call and
 * tool call is a DBOS step, each tool call gets the idempotency key
 * `<run id>:<tool-use id>`, and an interrupt is a durable wait answered with
 * `dbosWaitSender()`. Register before `DBOS.launch()`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a missing `name` or an `agent` that is not a function.
 * @example
 * ```ts
 * const support = registerDurableAgent({ name: 'support', agent: () => new Agent({ model, tools }) });
 * await DBOS.launch();
 * const result = await support.run('order-42', 'Where is my order?');
 * ```
 */
export function registerDurableAgent(options: DurableAgentWorkflowOptions): DurableWorkflow<AgentInput, AgentResultEvent> {
  const makeAgent: unknown = (options as Partial<DurableAgentWorkflowOptions> | undefined)?.agent;
  if (typeof makeAgent !== 'function')
    throw invalidDurableOption('registerDurableAgent', 'agent must be a function that makes the Agent of a run', makeAgent);
  const { name, runOptions, ...runner } = options;
  return registerDurableWorkflow<AgentInput, AgentResultEvent>(
    name,
    async (stepRunner, input) => durableAgent(await options.agent(), stepRunner).invoke(input, runOptions),
    runner,
  );
}
