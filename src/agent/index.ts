/**
 * staged-middleware/agent: provider-neutral message types, the three agent
 * stages and a reference agent loop (its test doubles are in
 * staged-middleware/testing).
 *
 * Every public name of this entry point is listed here.
 *
 * @packageDocumentation
 */
export { Agent } from './agent';
export type { AgentErrorCode } from './errors';
export type { AgentInput, AgentOptions, AgentRunOptions } from './agent-options';
export { AgentStreamStage, ExecuteToolStage, InvokeModelStage, isAgentResult, isModelResult, isToolResult } from './stages';
export { createModelContext, History } from './history';
export type { ModelContextParts } from './history';
export { createInterrupt, InterruptSignal, interruptId } from './interrupts';
export { modelTerminal, toModelRequest } from './model-terminal';
export { ZERO_USAGE } from './usage';
export { errorResult, toolTerminal, toResultContent } from './tool-terminal';
export type {
  CachePointBlock,
  ContentBlock,
  JsonBlock,
  Message,
  ReasoningBlock,
  Role,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from './message-types';
export type {
  MessageStartEvent,
  MessageStopEvent,
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelStreamEvent,
  ReasoningDeltaEvent,
  StopReason,
  TextDeltaEvent,
  ToolUseDeltaEvent,
  ToolUseStartEvent,
  Usage,
  UsageEvent,
} from './model-types';
export type {
  Interrupt,
  InterruptFunction,
  InterruptRequest,
  JsonSchema,
  Tool,
  ToolChoice,
  ToolRunContext,
  ToolSpec,
} from './tool-types';
export type {
  AgentEvent,
  AgentResultEvent,
  AgentStreamContext,
  ExecuteToolContext,
  InvokeModelContext,
  InvokeModelEvent,
  ModelResultEvent,
  ToolResultEvent,
} from './stage-types';
export type { SystemContentBlock, SystemPrompt } from '../system-prompt';
export { splitSystemPrompt, toSystemBlocks } from '../system-prompt';
