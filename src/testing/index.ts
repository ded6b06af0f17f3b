/**
 * staged-middleware/testing: test doubles for middleware and agents: a
 * scripted terminal, a one-call stage runner, and a scripted model and tools.
 *
 * @packageDocumentation
 */
export type { TestingErrorCode } from './errors';
export { scriptedTerminal, throws, waits, updatesState } from './scripted-terminal';
export type { EventsOf, ScriptAction, ScriptStep, ScriptedTerminal, ScriptedTerminalOptions, TerminalCall } from './scripted-terminal';
export { runStage } from './run-stage';
export type { RunStageOptions, StageRun } from './run-stage';
export type { HandlerCalls } from './handler-calls';
export { failingTurn, ScriptedModel, textTurn, toolUseTurn } from './scripted-model';
export type { ScriptedCall, ScriptedToolUse, ScriptedTurn, TurnOptions } from './scripted-model';
export { ScriptedTool } from './scripted-tool';
export type { ScriptedToolCall, ScriptedToolOptions, ScriptedToolOutcome } from './scripted-tool';
