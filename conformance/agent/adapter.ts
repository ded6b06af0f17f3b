import type { Middleware, MiddlewareRegistry, SystemPrompt } from '../../src/core/index';
import type { AgentEvent, AgentSession, AgentSnapshot, Interrupt, Message, Model, Tool, ToolChoice, Usage } from '../../src/agent/index';
import type { StepRunner } from '../../src/durable/index';
import type { AgentCapability } from '../cases/agent-capabilities';

/**
 * How the runner drives an agent loop for the agent cases: a framework that
 * embeds the standard stages in its own loop writes one of these and proves
 * that its loop honours the stage contract.
 *
 * The base loop every adapter provides: a run calls the model through
 * InvokeModelStage (with `modelTerminal` or a terminal of its own), runs
 * each tool use through ExecuteToolStage, goes on while the chain's result
 * says `toolUse`, uses the registry, model and tools it was given, and keeps
 * a history the runner reads afterwards. Everything beyond that is a
 * capability the adapter claims in `capabilities` (see `AGENT_CAPABILITIES`);
 * cases needing a capability it does not claim are reported as not claimed.
 *
 * @example
 * ```ts
 * const adapter: AgentLoopAdapter = {
 *   name: 'my loop',
 *   capabilities: ['systemPrompt', 'modelState'],
 *   start: (setup) => new MyConversation(setup),
 * };
 * ```
 */
export interface AgentLoopAdapter {
  /** The name reports show. */
  readonly name: string;
  /** What the loop can do beyond the base loop. */
  readonly capabilities: readonly AgentCapability[];
  /** Starts one conversation of the loop; every run of a case goes to the session it returns. A setup the loop refuses (a snapshot of a newer format, say) throws. */
  readonly start: (setup: AgentLoopSetup) => AgentLoopSession;
  /** Starts a conversation that goes on from what `setup.session` holds (capability `snapshots`). */
  readonly fromSession?: ((setup: AgentLoopSetup) => Promise<AgentLoopSession>) | undefined;
}

/** What a conversation starts with. Fields belonging to a capability are given only to a loop that claims it. */
export interface AgentLoopSetup {
  /** The registry whose handlers every stage invoke of the loop runs. */
  readonly registry: MiddlewareRegistry;
  /** The scripted model (with capability `aiSdk`, a model `fromAiSdk` made of the kit's scripted AI SDK language model). */
  readonly model: Model;
  /** The scripted tools. */
  readonly tools: readonly Tool[];
  /** The system prompt (capability `systemPrompt`); undefined: none. */
  readonly systemPrompt?: SystemPrompt | undefined;
  /** The messages the conversation starts from (capability `initialMessages`). */
  readonly messages?: readonly Message[] | undefined;
  /** The model state the conversation starts from (capability `modelState`). */
  readonly modelState?: Record<string, unknown> | undefined;
  /** The name the agent view carries (capability `agentView`); undefined: the loop's default. */
  readonly name?: string | undefined;
  /** The session store and id the conversation saves its snapshot to (capability `snapshots`). */
  readonly session?: AgentSession | undefined;
  /** The snapshot the conversation goes on from, given instead of messages and model state (capability `snapshots`). */
  readonly snapshot?: AgentSnapshot | undefined;
  /** Whether a run offers the tools contributed in the registry's ancestors too, as the reference agent's `inheritTools` (capability `agentMiddleware`); undefined: the loop's default. */
  readonly inheritTools?: boolean | undefined;
  /** The tool choice every model call is given, as the reference agent's `toolChoice` (capability `aiSdk`); undefined: the loop's default. */
  readonly toolChoice?: ToolChoice | undefined;
  /** The most turns a run makes, as the reference agent's `maxTurns` (capability `maxTurns`); undefined: the loop's default. */
  readonly maxTurns?: number | undefined;
}

/** One run (one turn of the conversation). */
export interface AgentLoopRun {
  /** The user's text or messages; undefined on a resume. */
  readonly input?: string | readonly Message[] | undefined;
  /** Interrupt responses by id: without input the run resumes a halted run (capability `interrupts`); with input they are given in advance (capability `agentInterrupts`). */
  readonly resume?: Record<string, unknown> | undefined;
  /** The run's invocation state (capability `invocationState`). */
  readonly invocationState?: Record<string, unknown> | undefined;
  /** The run's signal (capability `cancel`). */
  readonly signal?: AbortSignal | undefined;
  /** The run's own bundles, registered for this run alone as the reference agent's `options.use` (capability `agentMiddleware`). */
  readonly use?: readonly Middleware[] | undefined;
  /** Runs the run as a durable run over this runner, as `durableAgent(agent, runner)` does (capability `durable`); never given with `resume`. */
  readonly durable?: StepRunner | undefined;
}

/**
 * One conversation. Its run's stop reason is that of the last event when it
 * is an `agentResult`, else that of the last `modelResult` event.
 */
export interface AgentLoopSession {
  /** Runs one turn to its end, yielding every event (a failed run rejects with the error). */
  run(run: AgentLoopRun): AsyncIterable<AgentEvent>;
  /** The history now. */
  readonly messages: readonly Message[];
  /** The model state now; assigning replaces it (capability `modelState`). */
  modelState?: Record<string, unknown>;
  /** The interrupts a halted run left pending (capability `interrupts`). */
  readonly pendingInterrupts?: readonly Interrupt[];
  /** Cancels the running run (capability `cancel`); false when none is going. */
  cancel?(): boolean;
  /** The conversation state as a versioned JSON snapshot (capability `snapshots`). */
  snapshot?(): AgentSnapshot;
  /** Token counts summed over the runs the conversation kept (capability `snapshots`). */
  readonly usage?: Usage;
}
