/**
 * How tools are described to the model and run by the agent, and how a tool
 * asks a human (interrupts). Pure types.
 *
 * @packageDocumentation
 */
import type { ToolUseBlock } from './message';

/** A JSON schema, as providers take tool input schemas. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Describes a tool to the model. */
export interface ToolSpec {
  /** The name the model calls it by. */
  readonly name: string;
  /** What it does, for the model. */
  readonly description: string;
  /** JSON schema of its input. */
  readonly inputSchema: JsonSchema;
}

/** How the model may use tools: freely, at least one, or one named tool. */
export type ToolChoice = { readonly type: 'auto' } | { readonly type: 'any' } | { readonly type: 'tool'; readonly name: string };

/** What a tool learns about its call. */
export interface ToolRunContext {
  /** The tool use being answered. */
  readonly toolUse: ToolUseBlock;
  /** The agent run's abort signal. */
  readonly signal: AbortSignal;
  /** The run's invocation state (shared by reference). */
  readonly invocationState: Record<string, unknown>;
  /** Asks a human; see {@link InterruptFunction}. */
  readonly interrupt: InterruptFunction;
  /**
   * The same key every time this call runs, in any process: give it to the
   * outside world a tool changes (a payment API's idempotency key, a unique
   * row id) so a call run again after a crash changes it once (MW-249).
   * `<runId>:<tool-use id>` in a durable run; absent when the ExecuteToolStage context has none.
   */
  readonly idempotencyKey?: string;
}

/** A tool the agent can run, or (without `run`) one the caller runs itself. */
export interface Tool {
  /** How the model sees it. */
  readonly spec: ToolSpec;
  /**
   * Runs it. A string result becomes a text block, anything else a JSON
   * block; a throw becomes an error result. Leave it out for an external
   * tool: the run halts with the call, and the caller resumes it with the result.
   */
  run?(input: unknown, context: ToolRunContext): unknown;
  /**
   * Whether a human approves each call before it runs (MW-287): `true` asks
   * every time, a predicate asks when it returns `true`. The run halts on the
   * question `toolApproval`, answered through `resume` with an {@link ApprovalDecision}.
   */
  readonly needsApproval?: NeedsApproval;
}

/** How a human answers the approval question of a tool call (MW-287). */
export type ApprovalDecision =
  | { readonly decision: 'approve' }
  | {
      readonly decision: 'edit';
      /** The input the tool runs with instead of the model's (JSON). */
      readonly input: unknown;
    }
  | {
      readonly decision: 'reject';
      /** What the model reads as the call's error result (a default text when absent). */
      readonly message?: string;
    };

/** The kinds of {@link ApprovalDecision}. */
export type ApprovalDecisionType = ApprovalDecision['decision'];

/** What a `needsApproval` predicate learns about the call. */
export interface ApprovalCheckContext {
  /** The call: the tool's name, the tool-use id and the model's input. */
  readonly toolUse: { readonly name: string; readonly toolUseId: string; readonly input: unknown };
  /** The run's invocation state (shared by reference). */
  readonly invocationState: Record<string, unknown>;
}

/** Whether a call needs a human's approval: always, never, or when the predicate returns `true`. */
export type NeedsApproval = boolean | ((input: unknown, context: ApprovalCheckContext) => boolean | PromiseLike<boolean>);

/** The `reason` of an approval question (frozen; JSON, so it survives a snapshot). */
export interface ApprovalRequest {
  /** Marks the question. */
  readonly type: 'toolApproval';
  /** The tool use asked about. */
  readonly toolUseId: string;
  /** The tool's name. */
  readonly name: string;
  /** The model's input. */
  readonly input: unknown;
  /** The decisions the answer may take. */
  readonly decisions: readonly ApprovalDecisionType[];
  /** What the policy says about the tool, for the human, when it says something. */
  readonly description?: string;
}

/** A pending question to a human, raised by `interrupt()` in ExecuteToolStage or AgentStreamStage. */
export interface Interrupt {
  /** Deterministic: `executeTool:<tool-use id>:<name>`, or `agentStream:<name>` for the whole run. */
  readonly id: string;
  /** What is asked (`'approve'`, say). */
  readonly name: string;
  /** Why, for the human. */
  readonly reason: unknown;
}

/** What `interrupt()` takes. */
export interface InterruptRequest {
  /** What is asked; part of the interrupt id. */
  readonly name: string;
  /** Why, for the human. */
  readonly reason?: unknown;
  /** A response known in advance: no halt, unless a stored response exists (which wins). */
  readonly response?: unknown;
}

/** What `interrupt()` returns for a question whose response is known. */
export interface InterruptAnswer {
  /** The response (stored by a resume, or pre-supplied). */
  readonly response: unknown;
}

/**
 * Asks a human. Returns `{ response }` when a response is known (stored by
 * a resume, or pre-supplied); otherwise throws an `InterruptSignal` that halts
 * the agent with stop reason `'interrupt'`. Given several requests, it asks
 * them all at once: it returns their answers when every response is known,
 * and otherwise halts on every question without one.
 */
export interface InterruptFunction {
  /** Asks one question. */
  (request: InterruptRequest): InterruptAnswer;
  /** Asks several questions at once (each name once). */
  (requests: readonly InterruptRequest[]): readonly InterruptAnswer[];
}
