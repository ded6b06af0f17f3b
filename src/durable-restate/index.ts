/**
 * staged-middleware/durable/restate: durable agent runs on Restate
 * (`@restatedev/restate-sdk`, an optional peer dependency this entry point
 * never loads: it works on the context your handler receives): the step
 * contract of `staged-middleware/durable` over `ctx.run` and durable promises
 * (or awakeables), the reference agent (or a framework's own loop) inside a
 * Restate handler with the invocation id as the run id, the handlers of an
 * agent workflow, and the sender that answers its human approvals.
 *
 * Reading order: `restate-context.ts` (the context's parts it uses, pure
 * types), `restate-step-runner.ts` (steps and waits), `agent-workflow.ts`
 * (runs in handlers and workflows), `restate-wait-sender.ts` (answers from outside).
 *
 * @packageDocumentation
 */
export { restateStepRunner, WAITS_STATE_KEY } from './restate-step-runner';
export type { AwakeableWait, RestateStepRunnerOptions } from './restate-step-runner';
export { agentWorkflowHandlers, runAgentInRestate } from './agent-workflow';
export type { AgentWorkflowHandlers, AgentWorkflowOptions, RestateAgentRun, WaitAnswer } from './agent-workflow';
export { restateWaitSender } from './restate-wait-sender';
export type { RestateWaitSenderOptions } from './restate-wait-sender';
export type {
  RestateContext,
  RestateDurablePromise,
  RestateRequest,
  RestateThenable,
  RestateWorkflowContext,
  RestateWorkflowSharedContext,
} from './restate-context';
