/**
 * The capabilities an agent case needs, derived from what it uses, so that
 * the `needs` each case declares can be checked: a case that uses a
 * capability without declaring it would run on a loop that cannot pass it.
 */
import type { AgentCapability, AgentCase } from '../../src/conformance/cases/agent-case';

/** The codes a run refuses to start with. */
const REFUSALS = ['ERR_INVALID_OPTIONS', 'ERR_AGENT_BUSY', 'ERR_INTERRUPT_PENDING'];

/** What `testCase` uses beyond the base loop, in the order of `AGENT_CAPABILITIES`. */
export function derivedNeeds(testCase: AgentCase): AgentCapability[] {
  const { agent, runs } = testCase;
  const handlers = testCase.handlers ?? [];
  const tools = agent.tools ?? [];
  const expected = testCase.expect ?? {};
  const uses: Record<AgentCapability, boolean> = {
    systemPrompt: agent.systemPrompt !== undefined,
    initialMessages: agent.messages !== undefined,
    modelState:
      agent.modelState !== undefined ||
      agent.model.some((turn) => turn.stateWrites !== undefined || turn.stateDeletes !== undefined) ||
      expected.modelState !== undefined ||
      (expected.modelCalls ?? []).some((call) => call.state !== undefined) ||
      handlers.some((handler) => handler.do === 'setModelState'),
    invocationState: runs.some((run) => run.invocationState !== undefined || run.expect?.invocationState !== undefined) || handlers.some((handler) => handler.do === 'countInvocationState' || handler.presupplied !== undefined),
    // A failed run whose conversation is read afterwards, by the checks or by the runs after it.
    rollback: runs.some((run) => run.expect?.error !== undefined),
    agentStream:
      handlers.some((handler) => handler.stage === 'agentStream') ||
      runs.some((run) => run.expect?.usage !== undefined || run.expect?.interrupts !== undefined || run.expect?.eventTypes !== undefined || run.expect?.frozen !== undefined),
    interrupts: runs.some((run) => run.resume !== undefined) || tools.some((tool) => tool.interrupt !== undefined) || handlers.some((handler) => handler.do === 'approval') || expected.pendingInterrupts !== undefined,
    cancel:
      runs.some((run) => run.signal !== undefined) ||
      agent.model.some((turn) => turn.cancel === true || turn.cancelLater !== undefined || turn.hang === true) ||
      tools.some((tool) => tool.cancelAgent === true || tool.cancelLater !== undefined || tool.hang === true),
    // The refusals of a run itself (MW-106, MW-117), not errors of the model, a tool or a handler.
    runChecks: runs.some((run) => run.inputDefect !== undefined || REFUSALS.includes(run.expect?.error?.code ?? '')) || agent.model.some((turn) => turn.startAnotherRun === true) || expected.callerObjectsUnfrozen !== undefined,
  };
  return (Object.keys(uses) as AgentCapability[]).filter((capability) => uses[capability]);
}
