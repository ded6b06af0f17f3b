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
export {
  AgentStreamStage,
  CompressContextStage,
  ExecuteToolStage,
  InvokeModelStage,
  isAgentResult,
  isContextResult,
  isModelResult,
  isToolResult,
  isTurnResult,
  TurnStage,
} from './stages';
export { resolveTools, ToolsKey } from './agent-tools';
export type { ResolvedTools, ResolveToolsOptions } from './agent-tools';
export { compressTerminal, ContextBudgetKey, estimateTokens } from './context-budget';
export { compaction, DEFAULT_SUMMARY_INSTRUCTIONS } from './middleware/compaction';
export type { CompactionOptions } from './middleware/compaction';
export { TODO_STATE_KEY, todoList, WRITE_TODOS_DESCRIPTION } from './middleware/todo-list';
export type { Todo, TodoListOptions } from './middleware/todo-list';
export { SUBAGENT_STATE_KEY, subagent } from './middleware/subagent';
export type { SubagentOptions } from './middleware/subagent';
export { afterToolCall } from './middleware/after-tool-call';
export type { AfterToolCallHook } from './middleware/after-tool-call';
export { checkFinalAnswer, finalAnswerFeedback } from './middleware/final-answer-check';
export type { FinalAnswerCheckOptions } from './middleware/final-answer-check';
export type { CompressContextContext, ContextBudget, ContextCompressedEvent, ContextResultEvent } from './stage-types';
export { mergeTurnAction, readTurnResult, turnAction, turnTerminal } from './turn-action';
export { errorsAsAnswers, modelErrorAnswer, toolErrorAnswer } from './errors-as-answers';
export { FileSessionStore, MemorySessionStore } from './session-store';
export type { FileSessionStoreOptions, SessionFiles } from './session-store';
export type { AgentSession, AgentSnapshot, SessionStore } from './snapshot-types';
export type { ErrorsAsAnswersOptions } from './errors-as-answers';
export type { TurnDecider } from './turn-action';
export type { TurnAction, TurnContext, TurnResultEvent } from './stage-types';
export { createModelContext, History } from './history';
export type { ModelContextParts } from './history';
export { createInterrupt, InterruptSignal, interruptId } from './interrupts';
export { modelTerminal } from './model-terminal';
export { toModelRequest } from './model-request';
export { errorResult, EXTERNAL_TOOL, toolTerminal, toResultContent } from './tool-terminal';
export type { ToolUseReference } from './tool-terminal';
export { defineTool } from './define-tool';
export type { ToolDefinition, ToolInputIssue, ToolInputParse, ToolInputSchema } from './define-tool';
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
  AttemptBoundaryEvent,
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
  ExecuteToolContext,
  ExecuteToolEvent,
  InterruptEvent,
  InvokeModelContext,
  InvokeModelEvent,
  ModelResultEvent,
  ToolResultEvent,
} from './stage-types';
export type { AgentView } from './view';
