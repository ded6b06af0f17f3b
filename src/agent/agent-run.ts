/**
 * One run of the reference agent, from the moment it starts to the moment it
 * commits its conversation state (or puts it back): the AgentStreamStage
 * invoke around the turn loop, cancellation, and the commit.
 */
import { MiddlewareError } from '../errors';
import type { StateBinding, TerminalRun } from '../types';
import type { AgentCore } from './agent-core';
import { readRunOptions, type AgentInput, type AgentRunOptions } from './agent-options';
import { readInput } from './agent-setup';
import { prepareResume } from './pending-turn';
import { link } from './run-signal';
import type { Conversation, RunState, RunTally } from './run-state';
import type { AgentEvent, AgentStreamContext } from './stage-types';
import { AgentStreamStage, isAgentResult } from './stages';
import { agentResult, NO_INTERRUPTS, turnLoop, type LoopRun } from './turn-loop';
import { ZERO_USAGE } from './usage';

/**
 * One run; `resume` holds the responses of `agent.resume()`, which replace `options.interruptResponses`.
 *
 * @throws MiddlewareError `ERR_AGENT_BUSY`, `ERR_INTERRUPT_PENDING` or `ERR_INVALID_OPTIONS` when it starts (see `Agent.stream`).
 */
export async function* runAgent(core: AgentCore, input: AgentInput, options: AgentRunOptions, resume: { readonly responses: unknown } | undefined): AsyncGenerator<AgentEvent, void, undefined> {
  if (core.running !== undefined) {
    throw new MiddlewareError({
      code: 'ERR_AGENT_BUSY',
      stage: AgentStreamStage.name,
      message: 'The agent is already running. Wait for the current run to end (or cancel it with agent.cancel()) before starting another; use a second Agent for parallel conversations.',
    });
  }
  // Everything read from the caller is read here, before the agent counts as running, so a
  // value that fails to read or copy rejects this run and leaves the agent free for the next.
  const settings = readRunOptions(options, resume);
  const messages = readInput(input);
  const resumed = prepareResume(core.pending, messages, settings.responses);
  const controller = new AbortController();
  const unlink = link(settings, controller);
  core.running = controller;
  const start: Conversation = { history: core.history, modelState: core.modelState, pending: core.pending };
  const tally: RunTally = { usage: ZERO_USAGE, closed: undefined };
  const loop: LoopRun = { core, start, resume: resumed, tally };
  let committed = false;
  try {
    const context: AgentStreamContext = Object.freeze({ messages, invocationState: settings.invocationState, agent: core.view });
    const terminal = (runContext: AgentStreamContext, run: TerminalRun<RunState>): AsyncGenerator<AgentEvent, void, undefined> => turnLoop(loop, runContext, run);
    const conversation: StateBinding<RunState> = {
      get: () => ({ outcome: undefined }),
      set: (next) => {
        // Called by the core before the final event is delivered, and only when a terminal call completed.
        commit(core, next.outcome as Conversation);
        committed = true;
      },
    };
    try {
      for await (const event of core.registry.invoke(AgentStreamStage, context, terminal, { signal: controller.signal, state: conversation })) {
        // A run a Wrap handler ended early keeps what its closed terminal call reached (MW-128), before the caller sees the result.
        if (tally.closed !== undefined && !committed && isAgentResult(event)) {
          commit(core, tally.closed);
          committed = true;
        }
        yield event;
      }
    } catch (error) {
      committed = false;
      if (!controller.signal.aborted) throw error;
      commit(core, start);
      yield agentResult('cancelled', undefined, NO_INTERRUPTS, tally.usage);
    }
  } finally {
    // A run that committed nothing (it failed, was cancelled or closed, or no terminal call completed)
    // leaves the conversation as it started, dropping whatever was assigned to agent.modelState meanwhile.
    if (!committed) commit(core, start);
    core.running = undefined;
    unlink();
  }
}

/** Makes `conversation` the agent's conversation state. */
function commit(core: AgentCore, conversation: Conversation): void {
  core.history = conversation.history;
  core.modelState = conversation.modelState;
  core.pending = conversation.pending;
}
