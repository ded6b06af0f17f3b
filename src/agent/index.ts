/**
 * staged-middleware/agent: for a framework's agent loop: provider-neutral
 * message, model and tool types, the standard agent stages, the reference
 * agent loop with its turn control, errors as answers and durable sessions,
 * and the pieces to embed the stages in a loop of your own (terminals,
 * history, interrupts). Its test doubles are in `staged-middleware/testing`;
 * system prompts in `staged-middleware`.
 *
 * Every public name of this entry point is listed here.
 *
 * @packageDocumentation
 */
export { Agent } from './agent';
export type { AgentErrorCode } from './errors';
export type { AgentInput, AgentOptions, AgentRunOptions } from './agent-options';
export { AgentStreamStage, ExecuteToolStage, InvokeModelStage, isAgentResult, isModelResult, isToolResult, isTurnResult, TurnStage } from './stages';
export { mergeTurnAction, turnAction, turnTerminal } from './turn-action';
export { errorsAsAnswers, modelErrorAnswer, toolErrorAnswer } from './errors-as-answers';
export { FileSessionStore, MemorySessionStore } from './session-store';
export type { FileSessionStoreOptions, SessionFiles } from './session-store';
export type { AgentSession, AgentSnapshot, SessionStore } from './snapshot-types';
export type { ErrorsAsAnswersOptions } from './errors-as-answers';
export type { TurnDecider } from './turn-action';
export type { TurnAction, TurnContext, TurnResultEvent } from './turn-types';
export { createModelContext, History } from './history';
export type { ModelContextParts } from './history';
export { createInterrupt, InterruptSignal, interruptId } from './interrupts';
export { modelTerminal, toModelRequest } from './model-terminal';
export { errorResult, EXTERNAL_TOOL, toolTerminal, toResultContent } from './tool-terminal';
export type {
  CachePointBlock,
  ContentBlock,
  JsonBlock,
  Message,
  ReasoningBlock,
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
  InterruptAnswer,
  InterruptFunction,
  InterruptRequest,
  Tool,
  ToolChoice,
  ToolRunContext,
  ToolSpec,
} from './tool-types';
export type {
  AgentEvent,
  AgentResultEvent,
  AgentStreamContext,
  AgentView,
  ExecuteToolContext,
  InterruptEvent,
  InvokeModelContext,
  InvokeModelEvent,
  ModelResultEvent,
  ToolResultEvent,
} from './stage-types';
