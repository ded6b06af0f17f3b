/**
 * staged-middleware/durable/dbos: durable agent runs on DBOS Transact, a
 * library that journals workflows in Postgres (`@dbos-inc/dbos-sdk`, an
 * optional peer dependency that only this entry point loads): the step
 * contract of `staged-middleware/durable` over DBOS steps and messages, the
 * reference agent (or a framework's own loop) as a DBOS workflow whose id is
 * the run id, and the sender that answers a run's human approvals.
 *
 * Reading order: `dbos-step-runner.ts` (steps and waits), `dbos-workflows.ts`
 * (runs as workflows), `dbos-wait-sender.ts` (answers from outside).
 *
 * @packageDocumentation
 */
export { dbosStepRunner, WAIT_EVENT } from './dbos-step-runner';
export type { DbosStepRunnerOptions, Received } from './dbos-step-runner';
export { registerDurableAgent, registerDurableWorkflow } from './dbos-workflows';
export type { DurableAgentWorkflowOptions, DurableWorkflow } from './dbos-workflows';
export { dbosWaitSender } from './dbos-wait-sender';
export type { DbosMessaging, DbosWaitSender } from './dbos-wait-sender';
