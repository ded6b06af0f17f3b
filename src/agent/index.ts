/**
 * staged-middleware/agent: provider-neutral message types, the three agent
 * stages, a reference agent loop, and a scripted model and tools for tests.
 *
 * Every public name of this entry point is listed here.
 *
 * @packageDocumentation
 */
export { Agent } from './agent';
export type { AgentInput, AgentOptions, AgentRunOptions } from './agent-options';
export { AgentStreamStage, CompressContextStage, ExecuteToolStage, InvokeModelStage, isAgentResult, isContextResult, isModelResult, isToolResult, isTurnResult, TurnStage } from './stages';
export { resolveTools, ToolsKey } from './agent-tools';
export type { ResolvedTools, ResolveToolsOptions } from './agent-tools';
export { compressTerminal, ContextBudgetKey, estimateTokens } from './context-budget';
export { compaction, DEFAULT_SUMMARY_INSTRUCTIONS } from './middleware/compaction';
export type { CompactionOptions, SummarizeOptions } from './middleware/compaction';
export { TODO_STATE_KEY, todoList, WRITE_TODOS_DESCRIPTION } from './middleware/todo-list';
export type { Todo, TodoListOptions, TodoStatus } from './middleware/todo-list';
export { SUBAGENT_STATE_KEY, subagent } from './middleware/subagent';
export type { SubagentInheritance, SubagentOptions } from './middleware/subagent';
export { afterToolCall } from './middleware/after-tool-call';
export type { AfterToolCallHook, ToolResultPatch } from './middleware/after-tool-call';
export { checkFinalAnswer, finalAnswerFeedback } from './middleware/final-answer-check';
export type { FinalAnswerCheckOptions } from './middleware/final-answer-check';
export type {
  CompressContextContext,
  ContextBudget,
  ContextCompressedEvent,
  ContextResultEvent,
  MiddlewareModelCall,
  MiddlewareModelCaller,
  MiddlewareUsage,
  TokenCounter,
} from './context-types';
export { mergeTurnAction, turnAction, turnTerminal } from './turn-action';
export { errorsAsAnswers, modelErrorAnswer, toolErrorAnswer } from './errors-as-answers';
export { FileSessionStore, MemorySessionStore } from './session-store';
export type { FileSessionStoreOptions, SessionFiles } from './session-store';
export type { AgentSession, AgentSnapshot, AgentSnapshotVersion, HaltedRunSnapshot, HaltedTurnSnapshot, SessionStore } from './snapshot-types';
export type { AnswerWrap, ErrorsAsAnswersOptions } from './errors-as-answers';
export type { TurnDecider } from './turn-action';
export type { StoppedBy, TurnAction, TurnContext, TurnDecision, TurnInfo, TurnResultEvent } from './turn-types';
export { createModelContext, History } from './history';
export type { ModelContextParts } from './history';
export { createInterrupt, InterruptSignal, interruptId } from './interrupts';
export { modelTerminal, toModelRequest } from './model-terminal';
export { ZERO_USAGE } from './usage';
export { errorResult, EXTERNAL_TOOL, toolTerminal, toResultContent } from './tool-terminal';
export { adopt } from './freeze';
export { failingTurn, ScriptedModel, textTurn, toolUseTurn } from './scripted-model';
export type { ScriptedCall, ScriptedToolUse, ScriptedTurn, TurnOptions } from './scripted-model';
export { ScriptedTool } from './scripted-tools';
export type { ScriptedToolCall, ScriptedToolOptions, ScriptedToolOutcome } from './scripted-tools';
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
  InterruptAnswer,
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
  AgentParent,
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
export type { SystemContentBlock, SystemPrompt } from '../system-prompt';
export { splitSystemPrompt, toSystemBlocks } from '../system-prompt';
