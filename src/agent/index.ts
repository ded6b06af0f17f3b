/**
 * staged-middleware/agent: for a framework's agent loop: provider-neutral
 * message, model and tool types, the standard agent stages, the reference
 * agent loop with its turn control, errors as answers and durable sessions,
 * and the pieces to embed the stages in a loop of your own (terminals,
 * history, interrupts, the decision after a turn, usage sums, tool-result
 * names, one model call, one turn's tool calls, the run as one AgentStreamStage invoke, snapshots of a halted turn). Its test doubles are in `staged-middleware/testing`;
 * system prompts in `staged-middleware`.
 *
 * Every public name of this entry point is listed here. The kit reads in
 * this order, folder by folder:
 * - `types/`: the messages, models and tools the agent speaks, the contracts
 *   of its five stages (`types/stages.ts`), the view handlers get and the
 *   snapshot format. Pure types.
 * - `stages.ts`: the stage tokens, one per realm; `errors.ts`: its error table.
 * - `loop/`: the reference agent, from `Agent` down to one turn: the run,
 *   the turn loop, the decision after a turn, the model and tool calls.
 * - `model/` and `tools/`: the terminals of InvokeModelStage and
 *   ExecuteToolStage and what they need.
 * - `session/`: history, interrupts, suspended runs, snapshots and stores.
 * - `setup/`: what `new Agent()` and each run read once and keep.
 * - `values/`: copying, freezing and checking data from outside.
 * - `middleware/`: the built-in middleware of the agent stages.
 *
 * @packageDocumentation
 */
export { Agent } from './loop/agent';
export type { AgentErrorCode } from './errors';
export type { AgentInput, AgentOptions, AgentRunOptions } from './setup/agent-options';
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
export { resolveTools, ToolsKey } from './tools/agent-tools';
export type { ResolvedTools, ResolveToolsOptions } from './tools/agent-tools';
export { compressTerminal, ContextBudgetKey, estimateTokens } from './loop/context-budget';
export { compaction } from './middleware/compaction';
export type { CompactionOptions } from './middleware/compaction';
export { CompactionStateKey } from './middleware/compaction-state';
export type { CompactionState } from './middleware/compaction-state';
export { todoList } from './middleware/todo-list';
export type { Todo, TodoListOptions, TodoStatus } from './middleware/todo-list';
export { TodoStateKey } from './middleware/todo-state';
export type { TodoState } from './middleware/todo-state';
export { subagent } from './middleware/subagent';
export type { SubagentDetails, SubagentOptions, SubagentResultShape } from './middleware/subagent';
export { modelCallLimit, toolCallLimit } from './middleware/call-limits';
export type { ModelCallLimitOptions, ToolCallLimitAction, ToolCallLimitOptions } from './middleware/call-limits';
export { pii } from './middleware/pii';
export type { PiiOptions, PiiPattern, PiiStrategy, PiiType } from './middleware/pii';
export { defineMiddleware } from './middleware/define-middleware';
export { createStateKey } from './values/state-key';
export type { StateKey } from './types/state-key';
export type { MiddlewareDefinition } from './types/middleware-definition';
export { approvalPolicy } from './middleware/approval-policy';
export type { ApprovalPolicy, ApprovalPolicyRule } from './middleware/approval-policy';
export { TOOL_APPROVAL } from './tools/approval';
export { maxTurns, stopAfterTool, stopWhen } from './middleware/stop-conditions';
export type { StopCondition } from './middleware/stop-conditions';
export { clearToolResults } from './middleware/clear-tool-results';
export type { ClearToolResultsOptions } from './middleware/clear-tool-results';
export { toolEmulator } from './middleware/tool-emulator';
export type { ToolEmulatorOptions } from './middleware/tool-emulator';
export { toolSelector } from './middleware/tool-selector';
export type { ToolSelectorOptions } from './middleware/tool-selector';
export { dynamicSystemPrompt } from './middleware/dynamic-system-prompt';
export type { SystemPromptFunction } from './middleware/dynamic-system-prompt';
export { promptCaching } from './middleware/prompt-caching';
export type { PromptCachingOptions } from './middleware/prompt-caching';
export { prepareTurn } from './middleware/prepare-turn';
export type { PrepareTurn, TurnPreparation } from './middleware/prepare-turn';
export { afterToolCall } from './middleware/after-tool-call';
export type { AfterToolCallHook } from './middleware/after-tool-call';
export { checkFinalAnswer, finalAnswerFeedback } from './middleware/final-answer-check';
export type { FinalAnswerCheckOptions } from './middleware/final-answer-check';
export { genAiReplySpans, genAiSpans } from './tracing/gen-ai-spans';
export type {
  CompressContextContext,
  ContextBudget,
  ContextCompressedEvent,
  ContextResultEvent,
  MiddlewareModelCall,
  MiddlewareModelCaller,
} from './types/stages';
export { mergeTurnAction, readTurnResult, turnAction, turnTerminal } from './loop/turn-action';
export { agentErrorAnswer, errorsAsAnswers, modelErrorAnswer, toolErrorAnswer } from './tools/errors-as-answers';
export { FileSessionStore, MemorySessionStore } from './session/session-store';
export type { FileSessionStoreOptions, SessionFiles } from './session/session-store';
export { PostgresSessionStore } from './session/postgres-session-store';
export type { PostgresQueryable, PostgresSessionStoreOptions } from './session/postgres-session-store';
export { RedisSessionStore } from './session/redis-session-store';
export type { RedisScripting, RedisSessionStoreOptions } from './session/redis-session-store';
export type {
  AgentSession,
  AgentSnapshot,
  RevisionedSessionStore,
  SessionRecord,
  SessionSaveOptions,
  SessionStore,
} from './types/snapshot';
export type { ErrorsAsAnswersOptions } from './tools/errors-as-answers';
export type { TurnDecider } from './loop/turn-action';
export type { StoppedBy, TurnAction, TurnContext, TurnInfo, TurnResultEvent } from './types/stages';
export { createModelContext, History } from './session/history';
export { addUsage, ZERO_USAGE } from './setup/usage';
export { createTurnContext, decideTurn, endsRun, settleTurn, withResponse } from './loop/turn-decision';
export type { SettledTurn, TurnContextParts } from './loop/turn-decision';
export { namedToolResult } from './tools/named-tool-result';
export { runOwnLoop } from './loop/own-loop-run';
export { callModel } from './loop/model-call';
export type { CallModelOptions, ModelCallParts, ModelCallResult } from './loop/model-call';
export { callTools } from './loop/tool-dispatch';
export type { ToolCallParts, ToolCallsResult } from './loop/tool-dispatch';
export { restoreLoop, snapshotLoop } from './session/loop-snapshot';
export type { HaltedTurn, LoopState, RestoredLoop } from './session/loop-snapshot';
export type { OwnLoopBody, OwnLoopConversation, OwnLoopInput, OwnLoopOptions, OwnLoopOutcome } from './loop/own-loop-run';
export type { ModelContextParts } from './session/history';
export { createInterrupt, InterruptSignal, interruptId } from './session/interrupts';
export { modelTerminal } from './model/model-terminal';
export { toModelRequest } from './model/model-request';
export { errorResult, EXTERNAL_TOOL, toolTerminal, toResultContent } from './tools/tool-terminal';
export type { ToolUseReference } from './tools/tool-terminal';
export { defineTool } from './tools/define-tool';
export type { ToolDefinition, ToolInputIssue, ToolInputParse, ToolInputSchema } from './tools/define-tool';
export type {
  CachePointBlock,
  ContentBlock,
  JsonBlock,
  Message,
  ReasoningBlock,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from './types/message';
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
} from './types/model';
export type {
  ApprovalCheckContext,
  ApprovalDecision,
  ApprovalDecisionType,
  ApprovalRequest,
  Interrupt,
  InterruptAnswer,
  InterruptFunction,
  InterruptRequest,
  NeedsApproval,
  Tool,
  ToolChoice,
  ToolRunContext,
  ToolSpec,
} from './types/tool';
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
  SubagentEvent,
  ToolResultEvent,
} from './types/stages';
export type { AgentView } from './types/view';
