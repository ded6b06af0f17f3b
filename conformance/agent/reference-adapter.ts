import { Agent, type AgentEvent, type AgentOptions, type AgentSession } from '../../src/agent/index';
import { durableAgent } from '../../src/durable/index';
import { AGENT_CAPABILITIES, type AgentCapability } from '../cases/agent-capabilities';
import type { AgentLoopAdapter, AgentLoopRun, AgentLoopSession, AgentLoopSetup } from './adapter';

/** Every capability: the reference agent has them all. */
const EVERY_CAPABILITY: readonly AgentCapability[] = Object.freeze(Object.keys(AGENT_CAPABILITIES) as AgentCapability[]);

/**
 * The reference `Agent` of `staged-middleware/agent` as an agent loop
 * adapter: one agent per case, each run an `agent.stream()` (or a resume).
 */
export const referenceAgentAdapter: AgentLoopAdapter = Object.freeze({
  name: 'the reference Agent',
  capabilities: EVERY_CAPABILITY,
  start: (setup: AgentLoopSetup): AgentLoopSession => sessionOf(new Agent(agentOptions(setup))),
  fromSession: async (setup: AgentLoopSetup): Promise<AgentLoopSession> =>
    sessionOf(await Agent.fromSession(agentOptions(setup) as AgentOptions & { session: AgentSession })),
});

/** The agent's options: what the setup gives, nothing for what it leaves out. */
function agentOptions(setup: AgentLoopSetup): AgentOptions {
  return {
    model: setup.model,
    registry: setup.registry,
    tools: setup.tools,
    ...(setup.messages === undefined ? {} : { messages: setup.messages }),
    ...(setup.modelState === undefined ? {} : { modelState: setup.modelState }),
    ...(setup.systemPrompt === undefined ? {} : { systemPrompt: setup.systemPrompt }),
    ...(setup.name === undefined ? {} : { name: setup.name }),
    ...(setup.session === undefined ? {} : { session: setup.session }),
    ...(setup.snapshot === undefined ? {} : { snapshot: setup.snapshot }),
    ...(setup.inheritTools === undefined ? {} : { inheritTools: setup.inheritTools }),
    ...(setup.toolChoice === undefined ? {} : { toolChoice: setup.toolChoice }),
    ...(setup.maxTurns === undefined ? {} : { maxTurns: setup.maxTurns }),
  };
}

/** The agent as a conversation of the runner. */
function sessionOf(agent: Agent): AgentLoopSession {
  return {
    run(run: AgentLoopRun): AsyncIterable<AgentEvent> {
      const options = {
        ...(run.invocationState === undefined ? {} : { invocationState: run.invocationState }),
        ...(run.signal === undefined ? {} : { signal: run.signal }),
        ...(run.resume === undefined ? {} : { interruptResponses: run.resume }),
        ...(run.use === undefined ? {} : { use: run.use }),
      };
      return run.durable === undefined ? agent.stream(run.input, options) : durableAgent(agent, run.durable).stream(run.input, options);
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
    snapshot: () => agent.snapshot(),
    get usage() {
      return agent.usage;
    },
  };
}
