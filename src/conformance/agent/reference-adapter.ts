import { Agent, type AgentEvent } from '../../agent/index';
import type { AgentCapability } from '../cases/agent-case';
import type { AgentLoopAdapter, AgentLoopRun, AgentLoopSession, AgentLoopSetup } from './adapter';

/** Every capability: the reference agent has them all. */
const EVERY_CAPABILITY: readonly AgentCapability[] = Object.freeze(['systemPrompt', 'initialMessages', 'modelState', 'invocationState', 'rollback', 'agentStream', 'interrupts', 'cancel', 'runChecks']);

/**
 * The reference `Agent` of `staged-middleware/agent` as an agent loop
 * adapter: one agent per case, each run an `agent.stream()` (or a resume).
 */
export const referenceAgentAdapter: AgentLoopAdapter = Object.freeze({
  name: 'the reference Agent',
  capabilities: EVERY_CAPABILITY,
  start(setup: AgentLoopSetup): AgentLoopSession {
    const agent = new Agent({
      model: setup.model,
      registry: setup.registry,
      tools: setup.tools,
      ...(setup.messages === undefined ? {} : { messages: setup.messages }),
      ...(setup.modelState === undefined ? {} : { modelState: setup.modelState }),
      ...(setup.systemPrompt === undefined ? {} : { systemPrompt: setup.systemPrompt }),
    });
    return {
      run(run: AgentLoopRun): AsyncIterable<AgentEvent> {
        const options = {
          ...(run.invocationState === undefined ? {} : { invocationState: run.invocationState }),
          ...(run.signal === undefined ? {} : { signal: run.signal }),
        };
        if (run.resume !== undefined) return agent.stream(undefined, { ...options, interruptResponses: run.resume });
        return agent.stream(run.input, options);
      },
      get messages() {
        return agent.messages;
      },
      get modelState() {
        return agent.modelState;
      },
      set modelState(value: Record<string, unknown>) {
        agent.modelState = value;
      },
      get pendingInterrupts() {
        return agent.pendingInterrupts;
      },
      cancel: () => agent.cancel(),
    };
  },
});
