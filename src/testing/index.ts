/**
 * staged-middleware/testing: a scripted terminal and a one-call stage runner
 * for testing middleware.
 *
 * @packageDocumentation
 */
export { scriptedTerminal, throws, waits, updatesState } from './scripted-terminal';
export type { EventsOf, ScriptAction, ScriptStep, ScriptedTerminal, ScriptedTerminalOptions, TerminalCall } from './scripted-terminal';
export { runStage } from './run-stage';
export type { HandlerCalls, RunStageOptions, StageRun } from './run-stage';
