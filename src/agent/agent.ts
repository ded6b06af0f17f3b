import { castDraft, type Draft } from 'immer';
import { MiddlewareRegistry } from '../registry/registry';
import type { SystemContentBlock } from '../system-prompt';
import type { StateBinding, TerminalRun } from '../stage/types';
import { readRunOptions, type AgentInput, type AgentOptions, type AgentRunOptions } from './agent-options';
import { adoptRecord, readAgentOptions, readInput } from './agent-setup';
import { agentBusy } from './errors';
import { adopt } from './freeze';
import { createModelContext, History } from './history';
import { createInterrupt, InterruptSignal } from './interrupts';
import type { Message, ToolResultBlock, ToolUseBlock } from './message-types';
import type { Model, StopReason, Usage } from './model-types';
import { modelTerminal } from './model-terminal';
import { prepareResume, type PendingTurn } from './pending-turn';
import { link } from './run-signal';
import type { AgentEvent, AgentResultEvent, AgentStreamContext, ExecuteToolContext, ModelResultEvent } from './stage-types';
import { AgentStreamStage, ExecuteToolStage, InvokeModelStage, isModelResult, isToolResult } from './stages';
import type { Interrupt, Tool, ToolChoice } from './tool-types';
import { toolTerminal } from './tool-terminal';
import { addUsage, ZERO_USAGE } from './usage';
import type { Attempt, Conversation, RunState, RunTally } from './run-state';

/**
 * The reference agent loop: AgentStreamStage around the whole run; inside it,
 * InvokeModelStage, then ExecuteToolStage for each tool use, until the model
 * stops for another reason than `'toolUse'`.
 *
 * Contexts are frozen and share the history's frozen messages, so handing one
 * to a handler costs nothing per message; `model` and `invocationState` are
 * shared by reference. A run is all or nothing for the conversation (history,
 * model state, pending interrupts): each AgentStreamStage terminal call works
 * on its own copy, and the copy of the last one that completed is committed
 * when the run succeeds; a run that fails, is cancelled or is stopped early
 * changes none of them.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [weather], systemPrompt: 'Be brief.', registry });
 * const result = await agent.invoke('What is the weather in Oslo?');
 * console.log(result.stopReason, result.message);
 * ```
 */
export class Agent {
  /** The registry whose handlers run around every stage of the agent. */
  readonly registry: MiddlewareRegistry;
  private readonly model: Model;
  private readonly tools: ReadonlyMap<string, Tool>;
  private readonly toolSpecs: readonly Tool['spec'][];
  /** Frozen blocks, computed once, so building a model context copies nothing. */
  private readonly systemPrompt: readonly SystemContentBlock[] | undefined;
  private readonly toolChoice: ToolChoice | undefined;
  private history: History;
  private state: Record<string, unknown>;
  private pending: PendingTurn | undefined;
  private running: AbortController | undefined;

  /**
   * Creates an agent. Everything given is read and copied once, so the
   * agent's freezing never reaches the caller's objects.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a missing model, a malformed tool, two tools with one
   *   name, a system prompt, registry, model state, message list or tool choice of the wrong shape, or a
   *   value that cannot be copied (a cycle, a getter that throws), naming the part.
   */
  constructor(options: AgentOptions) {
    const setup = readAgentOptions(options);
    this.model = setup.model;
    this.tools = setup.tools;
    this.toolSpecs = setup.toolSpecs;
    this.systemPrompt = setup.systemPrompt;
    this.toolChoice = setup.toolChoice;
    this.registry = setup.registry ?? new MiddlewareRegistry();
    this.history = new History(setup.messages);
    this.state = setup.modelState;
  }

  /**
   * The conversation: a frozen array of frozen messages. During a run, the
   * history as it was when the run started; a run's messages appear when it
   * succeeds, just before its agent result is delivered.
   */
  get messages(): readonly Message[] {
    return this.history.messages;
  }

  /** The model state (frozen). The model's changes reach it only when its chain and then the whole run succeed. */
  get modelState(): Record<string, unknown> {
    return this.state;
  }

  /**
   * Replaces the model state (copied and frozen). An assignment made during a run does not survive the run.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` when the value is not an object or cannot be copied.
   */
  set modelState(value: Record<string, unknown>) {
    this.state = adoptRecord(value, 'agent.modelState');
  }

  /** The interrupts a halted run is waiting on (frozen; empty when none); during a run, those of its start. */
  get pendingInterrupts(): readonly Interrupt[] {
    return this.pending?.interrupts ?? NO_INTERRUPTS;
  }

  /**
   * Cancels the running run, if any: it ends with stop reason `'cancelled'`,
   * every open layer is closed, and the history and model state are put back.
   * The run settles even when a tool or the model ignores its signal: the
   * agent stops waiting on them at once.
   *
   * @returns Whether a run was cancelled.
   */
  cancel(reason?: unknown): boolean {
    if (this.running === undefined || this.running.signal.aborted) return false;
    this.running.abort(reason ?? new Error('The agent run was cancelled.'));
    return true;
  }

  /**
   * Runs the agent to its end and returns how it ended.
   *
   * @throws See {@link Agent.stream}.
   */
  async invoke(input: AgentInput, options: AgentRunOptions = {}): Promise<AgentResultEvent> {
    let last: AgentEvent | undefined;
    for await (const event of this.stream(input, options)) last = event;
    return last as AgentResultEvent;
  }

  /**
   * Resumes a run halted on interrupts, answering them by id.
   *
   * @throws See {@link Agent.stream}.
   */
  async resume(responses: Readonly<Record<string, unknown>>, options: Omit<AgentRunOptions, 'interruptResponses'> = {}): Promise<AgentResultEvent> {
    let last: AgentEvent | undefined;
    for await (const event of this.run(undefined, options, { responses })) last = event;
    return last as AgentResultEvent;
  }

  /**
   * Runs the agent, yielding every event of the run: model stream events,
   * model results, tool results and, last, the agent result.
   *
   * @throws MiddlewareError `ERR_AGENT_BUSY` when another run of this agent is going,
   *   `ERR_INTERRUPT_PENDING` for new input while interrupts are pending (or responses
   *   that fit none), `ERR_INVALID_OPTIONS` for malformed input or options, or input that cannot be
   *   read or copied (a cycle, a getter that throws; the message names the part). A run refused
   *   when it starts changes nothing and leaves the agent free for the next run. Errors of models,
   *   tools and handlers pass through unchanged (the history, model state and pending interrupts stay as
   *   they were); `ERR_INVALID_HANDLER` when the model's `stream()` or a tool's `run` cannot be called.
   */
  stream(input: AgentInput, options: AgentRunOptions = {}): AsyncGenerator<AgentEvent, void, undefined> {
    return this.run(input, options, undefined);
  }

  /** One run; `resume` holds the responses of `agent.resume()`, which replace `options.interruptResponses`. */
  private async *run(input: AgentInput, options: AgentRunOptions, resume: { readonly responses: unknown } | undefined): AsyncGenerator<AgentEvent, void, undefined> {
    if (this.running !== undefined) {
      throw agentBusy();
    }
    // Everything read from the caller is read here, before the agent counts as running, so a
    // value that fails to read or copy rejects this run and leaves the agent free for the next.
    const settings = readRunOptions(options, resume);
    const messages = readInput(input);
    const resumed = prepareResume(this.pending, messages, settings.responses);
    const controller = new AbortController();
    const unlink = link(settings, controller);
    this.running = controller;
    const start: Conversation = { history: this.history, modelState: this.state, pending: this.pending };
    const tally: RunTally = { usage: ZERO_USAGE };
    let committed = false;
    try {
      const context: AgentStreamContext = Object.freeze({ messages, invocationState: settings.invocationState });
      const terminal = (runContext: AgentStreamContext, run: TerminalRun<RunState>): AsyncGenerator<AgentEvent, void, undefined> =>
        this.loop(runContext, run, start, resumed, tally);
      const conversation: StateBinding<RunState> = {
        get: () => ({ outcome: undefined }),
        set: (next) => {
          // Called by the core before the final event is delivered, and only when a terminal call completed.
          const outcome = next.outcome as Conversation;
          this.history = outcome.history;
          this.state = outcome.modelState;
          this.pending = outcome.pending;
          committed = true;
        },
      };
      try {
        for await (const event of this.registry.invoke(AgentStreamStage, context, terminal, { signal: controller.signal, state: conversation })) yield event;
      } catch (error) {
        if (!controller.signal.aborted) throw error;
        this.rollBack(start);
        yield agentResult('cancelled', undefined, NO_INTERRUPTS, tally.usage);
      }
    } finally {
      // A run that committed nothing (it failed, was cancelled or closed, or no terminal call completed)
      // leaves the conversation as it started, dropping whatever was assigned to agent.modelState meanwhile.
      if (!committed) this.rollBack(start);
      this.running = undefined;
      unlink();
    }
  }

  private rollBack(start: Conversation): void {
    this.history = start.history;
    this.state = start.modelState;
    this.pending = start.pending;
  }

  /**
   * The terminal of AgentStreamStage: the loop of model calls and tool calls.
   * Each call works on its own {@link Attempt}, started from the run's start,
   * and hands it to the core as its state just before it ends.
   */
  private async *loop(
    context: AgentStreamContext,
    run: TerminalRun<RunState>,
    start: Conversation,
    resume: PendingTurn | undefined,
    tally: RunTally,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const { invocationState } = context;
    const { signal } = run;
    const attempt: Attempt = { history: new History(start.history.messages), modelState: start.modelState, pending: start.pending, usage: ZERO_USAGE };
    const finish = (result: AgentResultEvent): AgentResultEvent => {
      const outcome: Conversation = Object.freeze({ history: attempt.history, modelState: attempt.modelState, pending: attempt.pending });
      (run.state as Draft<RunState>).outcome = castDraft(outcome);
      return result;
    };
    let lastMessage: Message | undefined;
    // Its own copy of the resumed turn: the results an earlier call of this run found are not this call's.
    let turn = resume === undefined ? undefined : { ...resume, results: new Map(resume.results) };
    if (turn === undefined) attempt.history.append(...context.messages);
    for (;;) {
      if (turn === undefined) {
        const result = yield* this.callModel(attempt, invocationState, signal);
        attempt.history.append(result.message);
        attempt.usage = addUsage(attempt.usage, result.usage);
        tally.usage = addUsage(tally.usage, result.usage);
        lastMessage = attempt.history.messages[attempt.history.messages.length - 1] as Message;
        const toolUses = lastMessage.content.filter((block): block is ToolUseBlock => block.type === 'toolUse');
        if (result.stopReason !== 'toolUse' || toolUses.length === 0) {
          attempt.pending = undefined;
          yield finish(agentResult(result.stopReason, lastMessage, NO_INTERRUPTS, attempt.usage));
          return;
        }
        turn = { message: lastMessage, toolUses, results: new Map(), stored: new Map(), interrupts: [] };
      }
      lastMessage = turn.message;
      const interrupts = yield* this.callTools(turn, invocationState, signal);
      if (interrupts.length > 0) {
        attempt.pending = { ...turn, interrupts };
        yield finish(agentResult('interrupt', lastMessage, interrupts, attempt.usage));
        return;
      }
      attempt.pending = undefined;
      const results = turn.toolUses.map((toolUse) => turn?.results.get(toolUse.toolUseId) as ToolResultBlock);
      attempt.history.append({ role: 'user', content: results });
      turn = undefined;
    }
  }

  /** One InvokeModelStage invoke; its (Output-transformed) result is what the loop goes on with. */
  private async *callModel(attempt: Attempt, invocationState: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<AgentEvent, ModelResultEvent, undefined> {
    const before = attempt.modelState;
    const assigned = this.state;
    let written: Record<string, unknown> | undefined;
    const context = createModelContext({
      model: this.model,
      messages: attempt.history.messages,
      systemPrompt: this.systemPrompt,
      toolSpecs: this.toolSpecs,
      toolChoice: this.toolChoice,
      invocationState,
    });
    let last: AgentEvent | undefined;
    try {
      const events = this.registry.invoke(InvokeModelStage, context, modelTerminal, {
        signal,
        // The snapshot is the attempt's own state, so a handler's change to agent.modelState never reaches the model.
        state: { get: () => before, set: (next) => void (written = next) },
      });
      for await (const event of events) {
        last = kept(event);
        yield event;
      }
    } finally {
      attempt.modelState = written ?? before;
      // Whatever a handler assigned to agent.modelState during the invoke is dropped with it.
      this.state = assigned;
    }
    return last as ModelResultEvent;
  }

  /** ExecuteToolStage for each tool use of the turn that has no result yet; returns the interrupts raised. */
  private async *callTools(turn: PendingTurn, invocationState: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<AgentEvent, readonly Interrupt[], undefined> {
    const interrupts: Interrupt[] = [];
    for (const toolUse of turn.toolUses) {
      if (turn.results.has(toolUse.toolUseId)) continue;
      const context: ExecuteToolContext = Object.freeze({
        tool: this.tools.get(toolUse.name),
        toolUse: Object.freeze({ name: toolUse.name, toolUseId: toolUse.toolUseId, input: toolUse.input }),
        invocationState,
        signal,
        interrupt: createInterrupt(ExecuteToolStage.name, toolUse.toolUseId, turn.stored),
      });
      try {
        let last: AgentEvent | undefined;
        for await (const event of this.registry.invoke(ExecuteToolStage, context, toolTerminal, { signal })) {
          last = kept(event);
          yield event;
        }
        turn.results.set(toolUse.toolUseId, (last as { toolResult: ToolResultBlock }).toolResult);
      } catch (error) {
        if (!InterruptSignal.isInstance(error)) throw error;
        interrupts.push(error.interrupt);
      }
    }
    return Object.freeze(interrupts);
  }
}

const NO_INTERRUPTS: readonly Interrupt[] = Object.freeze([]);

/**
 * A model or tool result as the loop keeps it: frozen. The terminals' own
 * results are; one a handler made is copied (a tool result's `error` kept as
 * it is) before it is yielded, so no one downstream can change what the loop goes on with.
 */
function kept(event: AgentEvent): AgentEvent {
  if (isModelResult(event)) return adopt(event, 'modelResult');
  if (!isToolResult(event) || (Object.isFrozen(event) && Object.isFrozen(event.toolResult))) return event;
  return Object.freeze({ ...event, toolResult: adopt(event.toolResult, 'toolResult') });
}

/** The result event of AgentStreamStage (frozen, as its interrupts, message and usage are). */
function agentResult(stopReason: StopReason, message: Message | undefined, interrupts: readonly Interrupt[], usage: Usage): AgentResultEvent {
  return Object.freeze({ type: 'agentResult', stopReason, message, interrupts, usage });
}
