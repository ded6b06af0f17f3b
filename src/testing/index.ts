/**
 * staged-middleware/testing: test doubles, for testing middleware and agents
 * without a network: a scripted terminal and its steps, a one-call stage
 * runner, and a scripted model and tools for the agent kit.
 *
 * Every public name of this entry point is listed here.
 *
 * @packageDocumentation
 */
export { scriptedTerminal, throws, waits, updatesState } from './scripted-terminal';
export type { ScriptedTerminalOptions } from './scripted-terminal';
export { runStage } from './run-stage';
export type { RunStageOptions } from './run-stage';
export { failingTurn, ScriptedModel, textTurn, toolUseTurn } from './scripted-model';
export type { ScriptedToolUse, ScriptedTurn, TurnOptions } from './scripted-model';
export { ScriptedTool } from './scripted-tool';
export type { ScriptedToolOptions } from './scripted-tool';
export type { TestingErrorCode } from './errors';
