/**
 * What a TypeScript block of the documentation may use without declaring it
 * (checked by test/docs/code-blocks.test.ts). Each block is its own module:
 *
 * - names exported by `staged-middleware`, `/agent`, `/middleware`,
 *   `/testing`, `/durable` and `/durable/dbos` are imported for it when it uses them without importing them;
 * - the names below stand for the reader's own objects (a registry, a model
 *   stage and its context, a terminal...); a block that declares a name
 *   itself uses its own;
 * - a block fenced ```ts nocheck is not type-checked, and the text just
 *   before it says why ("not type-checked: ...").
 */

/** The context of the model stage the examples use. */
interface ModelContext {
  readonly model: string;
  readonly prompt: string;
  readonly messages: readonly string[];
  readonly temperature: number;
}
/** Its result event. */
interface ModelResult {
  readonly type: 'result';
  readonly text: string;
}
/** Its events: text deltas and the result. */
type ModelEvent = { readonly type: 'delta'; readonly text: string } | ModelResult;

/** The reader's registry. */
declare const registry: import('staged-middleware').MiddlewareRegistry;
/** The reader's model stage (`Stage` in the shortest examples). */
declare const ModelStage: import('staged-middleware').MiddlewareStage<ModelContext, ModelResult, ModelEvent>;
declare const Stage: typeof ModelStage;
/** A context of the model stage. */
declare const context: ModelContext;
/** The reader's terminal: calls the model. */
declare const callModel: import('staged-middleware').Terminal<ModelContext, ModelEvent>;
/** Schemas of the model stage (zod schemas, say). */
declare const ModelContextSchema: import('staged-middleware').Schema<ModelContext>;
declare const ModelResultSchema: import('staged-middleware').Schema<ModelResult>;
/** An abort signal of the caller. */
declare const signal: AbortSignal;
/** Shows an event in the reader's UI. */
declare function render(event: unknown): void;
/** Removes e-mail addresses from a text. */
declare function redact(text: string): string;
/** A state binding's two functions. */
declare function get(): Record<string, unknown>;
declare function set(next: Record<string, unknown>): void;

/** The reader's model provider, tools and agent (staged-middleware/agent). */
declare const model: import('staged-middleware/agent').Model;
declare const myModel: import('staged-middleware/agent').Model;
declare const tools: readonly import('staged-middleware/agent').Tool[];
declare const weather: import('staged-middleware/agent').Tool;
declare const agent: import('staged-middleware/agent').Agent;
declare const store: import('staged-middleware/agent').SessionStore;

declare const systemPrompt: string;
declare const toolSpecs: readonly import('staged-middleware/agent').ToolSpec[];

/** DBOS Transact (`@dbos-inc/dbos-sdk`), for the examples of staged-middleware/durable/dbos. */
declare const DBOS: typeof import('@dbos-inc/dbos-sdk').DBOS;

/** vitest's `expect`, for the examples of the test kit. */
declare const expect: typeof import('vitest').expect;

/** The README quick start's stage. */
declare const ReplyStage: import('staged-middleware').MiddlewareStage<
  { prompt: string },
  { type: 'done'; text: string },
  { type: 'text'; text: string } | { type: 'done'; text: string }
>;
/** What a Wrap handler learns about its invoke. */
declare const run: import('staged-middleware').HandlerCall;
/** A terminal of the model stage (a scripted one, say). */
declare const terminal: import('staged-middleware').Terminal<ModelContext, ModelEvent>;
/** Contexts of the agent kit's tool and turn stages. */
declare const toolContext: import('staged-middleware/agent').ExecuteToolContext;
declare const turnContext: import('staged-middleware/agent').TurnContext;
/** A tool of the reader's. */
declare const clock: import('staged-middleware/agent').Tool;
/** Whether the model has called the verifier tool in these messages. */
declare function calledVerifier(messages: readonly import('staged-middleware/agent').Message[]): boolean;
/** The conformance cases a reader loaded (staged-middleware/conformance). */
declare const cases: readonly unknown[];
/** The reader's adapter for their own agent loop. */
declare const myAdapter: import('staged-middleware/conformance').AgentLoopAdapter;
/** What a conversation of the reader's own agent loop implements (a class implements only a named type). */
type ReaderAgentLoopSession = import('staged-middleware/conformance').AgentLoopSession;
/** One conversation of the reader's own agent loop. */
declare class MyConversation implements ReaderAgentLoopSession {
  constructor(setup: import('staged-middleware/conformance').AgentLoopSetup);
  run: import('staged-middleware/conformance').AgentLoopSession['run'];
  readonly messages: import('staged-middleware/conformance').AgentLoopSession['messages'];
}
/** A line connection to the reader's port in another language, over a child process's stdio. */
declare function myChildProcessConnection(command: string): import('staged-middleware/conformance').LineConnection;

/** The reader's provider client, and their mapping to and from its shapes (the model contract's example). */
declare const client: { chat(request: unknown, options: { readonly signal: AbortSignal }): Promise<AsyncIterable<unknown>> };
declare function toProviderRequest(request: import('staged-middleware/agent').ModelRequest): unknown;
declare function toStreamEvents(chunk: unknown): Iterable<import('staged-middleware/agent').ModelStreamEvent>;

/** AI SDK providers, not installed here: each gives a language model of specification version 3. */
declare module '@ai-sdk/anthropic' {
  export function anthropic(modelId: string): import('staged-middleware/ai-sdk').AiSdkLanguageModel;
}
declare module '@ai-sdk/openai' {
  export function openai(modelId: string): import('staged-middleware/ai-sdk').AiSdkLanguageModel;
}
/** The context of the reader's Restate workflow handler (staged-middleware/durable/restate). */
declare const ctx: import('staged-middleware/durable/restate').RestateWorkflowContext;
/** The reader's approval queue, where a durable run publishes what it waits for. */
declare const approvals: { save(wait: import('staged-middleware/durable/restate').AwakeableWait): Promise<void> };

/** An own loop's last model result, usage so far, invocation state, model state and halted turn. */
declare const result: import('staged-middleware/agent').ModelResultEvent;
declare const usage: import('staged-middleware/agent').Usage;
declare const invocationState: Record<string, unknown>;
declare const modelState: Record<string, unknown>;
declare const halted: import('staged-middleware/agent').HaltedTurn;
