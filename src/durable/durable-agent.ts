/**
 * Durable runs of the reference `Agent` and of a framework's own loop
 * (MW-250): the agent runs with the durable layer of its run; a run that
 * halts on interrupts waits for each answer with the runner's durable wait
 * instead of ending, then resumes itself; the run's end is a step too, so a
 * replay that ends early diverges (MW-247).
 *
 * @packageDocumentation
 */
import type { Agent, AgentEvent, AgentInput, AgentResultEvent, AgentRunOptions, Interrupt } from '../agent/index';
import { isAgentResult } from '../agent/index';
import { checkRunner, durableSteps } from './durable-steps';
import { invalidDurableOption } from './errors';
import { journalForm } from './step-record';
import type { JsonValue, StepRunner } from './types';

/** The name of the step that ends a durable agent run (MW-247). */
export const RUN_END_STEP = 'agentStream:end';

/** Options of a durable agent run: the agent's run options but the interrupt responses, which come from the runner's waits. */
export type DurableRunOptions = Omit<AgentRunOptions, 'interruptResponses'>;

/** The reference agent as a durable run over a {@link StepRunner}; see {@link durableAgent}. */
export interface DurableAgent {
  /** Runs the agent durably, yielding every event of the run as `agent.stream()` does, but no result of a halt: the run waits for the answers and goes on. */
  stream(input: AgentInput, options?: DurableRunOptions): AsyncGenerator<AgentEvent, void, undefined>;
  /** Runs the agent durably and resolves to its final result. */
  invoke(input: AgentInput, options?: DurableRunOptions): Promise<AgentResultEvent>;
}

/**
 * Waits durably for the answer to each interrupt, in order (MW-250): the wait
 * is named by the interrupt's id and holds the interrupt as its request.
 * Resolves to the responses by interrupt id, as `agent.resume()` and
 * `createInterrupt()` take them.
 *
 * @throws MiddlewareError `ERR_NOT_JOURNALABLE` when an interrupt's reason is not JSON; `ERR_INVALID_OPTIONS` for a runner that is not one.
 * @example
 * ```ts
 * const runner = new InMemoryJournal().runner('run-1');
 * try {
 *   for await (const event of registry.invoke(ExecuteToolStage, toolContext, toolTerminal)) render(event);
 * } catch (error) {
 *   if (!InterruptSignal.isInstance(error)) throw error;
 *   const responses = await awaitInterrupts(runner, error.interrupts); // then call the tool again with them
 * }
 * ```
 */
export async function awaitInterrupts(runner: StepRunner, interrupts: readonly Interrupt[]): Promise<Readonly<Record<string, JsonValue>>> {
  checkRunner(runner, 'awaitInterrupts');
  const responses: Record<string, JsonValue> = {};
  for (const interrupt of interrupts) {
    const request = journalForm(interrupt, 'interrupt', { stage: 'agentStream', step: interrupt.id });
    Object.defineProperty(responses, interrupt.id, {
      value: await runner.wait(interrupt.id, request),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return Object.freeze(responses);
}

/**
 * The reference `agent` as a durable run over `runner` (MW-250): each run
 * registers {@link durableSteps} for that run, so every model call and tool
 * call is a step; when the run halts on interrupts, it waits for their
 * answers with the runner and resumes the agent with them (yielding the
 * interrupt events, never the halted result); it ends with the step
 * `agentStream:end`. Give it a fresh agent (new history) in each process: a
 * replay starts from the same state the first run started from.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `runner` is not a StepRunner or `agent` has no `stream`.
 * @example
 * ```ts
 * const journal = new InMemoryJournal();
 * const durable = durableAgent(agent, journal.runner('order-42'));
 * const result = await durable.invoke('Refund order 42');
 * ```
 */
export function durableAgent(agent: Agent, runner: StepRunner): DurableAgent {
  checkRunner(runner, 'durableAgent');
  if (typeof (agent as { stream?: unknown } | null)?.stream !== 'function')
    throw invalidDurableOption('durableAgent', 'agent must be an Agent', agent);

  async function* stream(input: AgentInput, options: DurableRunOptions = {}): AsyncGenerator<AgentEvent, void, undefined> {
    const steps = durableSteps(runner);
    const use = [...(options.use ?? []), steps];
    let events = agent.stream(input, { ...options, use });
    for (;;) {
      let halted: AgentResultEvent | undefined;
      for await (const event of events) {
        if (isAgentResult(event) && event.stopReason === 'interrupt') halted = event;
        else if (isAgentResult(event)) {
          await runner.run(RUN_END_STEP, () => Promise.resolve({ stopReason: event.stopReason }));
          yield event;
        } else yield event;
      }
      if (halted === undefined) return;
      const responses = await awaitInterrupts(runner, halted.interrupts);
      events = agent.stream(undefined, { ...options, use, interruptResponses: responses });
    }
  }

  return Object.freeze({
    stream,
    async invoke(input: AgentInput, options?: DurableRunOptions): Promise<AgentResultEvent> {
      let last: AgentEvent | undefined;
      for await (const event of stream(input, options)) last = event;
      return last as AgentResultEvent;
    },
  });
}
