/**
 * staged-middleware/durable: agent runs that survive a killed process, on a
 * durable execution engine (DBOS Transact, Restate, or your own adapter):
 * the engine-neutral step contract, an in-memory runner for tests, the
 * durable layer that makes every model call and tool call a journaled step,
 * and durable runs of the reference `Agent` and of a framework's own loop.
 *
 * Reading order:
 * - `types.ts`: the contract an engine adapter implements (`StepRunner`,
 *   `WaitSender`). Pure types.
 * - `in-memory-runner.ts`: the contract over a journal in memory.
 * - `durable-steps.ts`: the Wrap handlers that run a stage's terminal as one
 *   step; `step-record.ts`: what a step records and how a replay reads it.
 * - `durable-agent.ts`: the reference agent (and interrupts) as a durable run.
 * - `errors.ts`: the entry point's error table.
 *
 * @packageDocumentation
 */
export type { JsonValue, StepAttempt, StepRunner, WaitRequest, WaitSender } from './types';
export type { DurableErrorCode } from './errors';
export { InMemoryJournal, InMemoryStepRunner, RunnerKilledError } from './in-memory-runner';
export type { JournalEntry } from './in-memory-runner';
export { DURABLE_ORDER, durableSteps } from './durable-steps';
export { awaitInterrupts, durableAgent, RUN_END_STEP } from './durable-agent';
export type { DurableAgent, DurableRunOptions } from './durable-agent';
