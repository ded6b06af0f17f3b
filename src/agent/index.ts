/**
 * staged-middleware/agent: provider-neutral message types, the three agent
 * stages, a reference agent loop, and a scripted model and tools for tests.
 *
 * Every public name of this entry point is listed here.
 *
 * @packageDocumentation
 */
export { Agent } from './agent';
export type { AgentInput, AgentOptions, AgentRunOptions } from './agent';
export { AgentStreamStage, ExecuteToolStage, InvokeModelStage, isAgentResult, isModelResult, isToolResult } from './stages';
export { createModelContext, History } from './history';
export type { ModelContextParts } from './history';
export { createInterrupt, InterruptSignal, interruptId } from './interrupts';
export { modelTerminal, toModelRequest, ZERO_USAGE } from './model-terminal';
export { errorResult, toolTerminal, toResultContent } from './tool-terminal';
export { adopt } from './freeze';
export { failingTurn, ScriptedModel, textTurn, toolUseTurn } from './scripted-model';
export type { ScriptedCall, ScriptedToolUse, ScriptedTurn, TurnOptions } from './scripted-model';
export { ScriptedTool } from './scripted-tools';
export type { ScriptedToolCall, ScriptedToolOptions, ScriptedToolOutcome } from './scripted-tools';
export type {
  AgentEvent,
  AgentResultEvent,
  AgentStreamContext,
  CachePointBlock,
  ContentBlock,
  ExecuteToolContext,
  Interrupt,
  InterruptFunction,
  InterruptRequest,
  InvokeModelContext,
  InvokeModelEvent,
  JsonBlock,
  JsonSchema,
  Message,
  MessageStartEvent,
  MessageStopEvent,
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResultEvent,
  ModelStreamEvent,
  ReasoningBlock,
  ReasoningDeltaEvent,
  Role,
  StopReason,
  TextBlock,
  TextDeltaEvent,
  Tool,
  ToolChoice,
  ToolResultBlock,
  ToolResultEvent,
  ToolRunContext,
  ToolSpec,
  ToolUseBlock,
  ToolUseDeltaEvent,
  ToolUseStartEvent,
  Usage,
  UsageEvent,
} from './types';
export type { SystemContentBlock, SystemPrompt } from '../system-prompt';
export { splitSystemPrompt, toSystemBlocks } from '../system-prompt';
