/**
 * The capabilities an agent case needs, derived from what it uses, so that
 * the `needs` each case declares can be checked: a case that uses a
 * capability without declaring it would run on a loop that cannot pass it.
 */
import type { AgentCapability } from '../../conformance/cases/agent-capabilities';
import type { AgentCase } from '../../conformance/cases/agent-case';

/** The codes a run refuses to start with. */
const REFUSALS = ['ERR_INVALID_OPTIONS', 'ERR_AGENT_BUSY', 'ERR_INTERRUPT_PENDING'];

/** Whether the error is a run refusing to start: one of the refusals, raised for the run itself rather than by one of its stages' handlers. */
function refused(
  error: { readonly code?: string | undefined; readonly stage?: string | undefined; readonly handler?: string | undefined } | undefined,
): boolean {
  return (
    error !== undefined &&
    REFUSALS.includes(error.code ?? '') &&
    (error.stage === undefined || error.stage === 'agentStream') &&
    error.handler === undefined
  );
}

/** What `testCase` uses beyond the base loop, in the order of `AGENT_CAPABILITIES`. */
export function derivedNeeds(testCase: AgentCase): AgentCapability[] {
  const { agent, runs } = testCase;
  const turns = agent.model ?? [];
  // The hooks of defined bundles are handlers of the vocabulary too.
  const bundles = [...(agent.bundles ?? []), ...runs.flatMap((run) => run.use ?? [])];
  const handlers = [...(testCase.handlers ?? []), ...bundles.flatMap((bundle) => bundle.hooks ?? [])];
  const tools = agent.tools ?? [];
  const expected = testCase.expect ?? {};
  const handles = (...names: string[]): boolean => handlers.some((handler) => names.includes(handler.do));
  const uses: Record<AgentCapability, boolean> = {
    systemPrompt: agent.systemPrompt !== undefined,
    initialMessages: agent.messages !== undefined,
    modelState:
      agent.modelState !== undefined ||
      turns.some((turn) => turn.stateWrites !== undefined || turn.stateDeletes !== undefined) ||
      expected.modelState !== undefined ||
      (expected.modelCalls ?? []).some((call) => call.state !== undefined) ||
      handles('setModelState'),
    invocationState:
      runs.some((run) => run.invocationState !== undefined || run.expect?.invocationState !== undefined) ||
      handles('countInvocationState', 'observeState', 'countWithKey', 'observeStateKey') ||
      handlers.some((handler) => handler.presupplied !== undefined),
    // A failed run whose conversation is read afterwards, by the checks or by the runs after it.
    rollback: runs.some((run) => run.expect?.error !== undefined),
    agentStream:
      handlers.some((handler) => handler.stage === 'agentStream') ||
      runs.some(
        (run) =>
          run.expect?.usage !== undefined ||
          run.expect?.interrupts !== undefined ||
          run.expect?.eventTypes !== undefined ||
          run.expect?.frozen !== undefined ||
          run.expect?.stoppedBy !== undefined,
      ),
    interrupts:
      runs.some((run) => run.resume !== undefined) ||
      tools.some((tool) => tool.interrupt !== undefined || tool.interruptMany !== undefined || tool.external === true) ||
      handles('approval') ||
      expected.pendingInterrupts !== undefined,
    cancel:
      runs.some((run) => run.signal !== undefined) ||
      turns.some((turn) => turn.cancel === true || turn.cancelLater !== undefined || turn.hang === true) ||
      (agent.aiSdk?.responses ?? []).some(
        (response) => 'parts' in response && (response.cancelLater !== undefined || response.hang === true),
      ) ||
      tools.some((tool) => tool.cancelAgent === true || tool.cancelLater !== undefined || tool.hang === true) ||
      bundles.some((bundle) =>
        Object.values(bundle.server?.answers ?? {}).some((answers) =>
          answers.some((answer) => answer.cancelLater !== undefined || answer.hang === true),
        ),
      ),
    // The refusals of a run itself (MW-106, MW-117), not errors of the model, a tool or a handler, and what
    // MW-117 does not refuse: a run with no input that resumes nothing.
    runChecks:
      runs.some((run) => run.inputDefect !== undefined || refused(run.expect?.error)) ||
      runs.some((run) => run.input === undefined && run.resume === undefined) ||
      turns.some((turn) => turn.startAnotherRun === true) ||
      expected.callerObjectsUnfrozen !== undefined,
    turnControl:
      handlers.some((handler) => handler.stage === 'turn') ||
      bundles.some((bundle) => bundle.staleAfter !== undefined || bundle.finishGuard !== undefined || bundle.escalateAfter !== undefined) ||
      handles('stopAfter') ||
      runs.some(
        (run) => (run.expect?.stoppedBy !== undefined && run.expect.stopReason !== 'maxTurns') || run.expect?.stopReason === 'stopped',
      ),
    // Questions about the whole run, responses given with a fresh run's input, questions after the result.
    agentInterrupts: handles('gate', 'lateInterrupt') || runs.some((run) => run.input !== undefined && run.resume !== undefined),
    snapshots:
      agent.session !== undefined ||
      runs.some((run) => run.restore !== undefined || run.snapshotPatch !== undefined) ||
      expected.snapshot !== undefined ||
      expected.agentUsage !== undefined,
    agentView: agent.name !== undefined || handles('observeAgent'),
    maxTurns: agent.maxTurns !== undefined || runs.some((run) => run.expect?.stopReason === 'maxTurns'),
    agentMiddleware:
      agent.bundles !== undefined ||
      agent.inheritTools !== undefined ||
      runs.some((run) => run.use !== undefined || run.expect?.middlewareUsage !== undefined || run.expect?.compressed !== undefined) ||
      handlers.some((handler) => handler.stage === 'compressContext') ||
      handles('afterToolCall', 'checkFinalAnswer', 'observeCaller', 'observeCompressed', 'observeText') ||
      expected.childModelCalls !== undefined ||
      (expected.modelCalls ?? []).some((call) => call.toolNames !== undefined),
    aiSdk:
      agent.aiSdk !== undefined || agent.aiSdkTools !== undefined || agent.toolChoice !== undefined || expected.aiSdkCalls !== undefined,
    tracing: agent.tracing !== undefined || expected.spans !== undefined,
    durable:
      runs.some((run) => run.durable !== undefined) ||
      expected.journal !== undefined ||
      handles('stopInProcess') ||
      tools.some((tool) => tool.observeKey === true),
    mcp: bundles.some((bundle) => bundle.kind === 'mcp'),
  };
  return (Object.keys(uses) as AgentCapability[]).filter((capability) => uses[capability]);
}
