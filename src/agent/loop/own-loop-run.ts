/**
 * A framework's own loop as one AgentStreamStage invoke (MW-313): the run
 * the reference agent makes, with the loop's body as its terminal, so
 * AgentStreamStage handlers apply to it and `tracing` gives it one span tree
 * per run, its model, tool and turn invokes under the terminal's span
 * (MW-192). With `options.conversation`, the run keeps what its body
 * completed as the reference agent keeps its conversation (MW-327).
 */
import type { Draft } from 'immer';
import type { MiddlewareRegistry, StateBinding, TerminalCall } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalid } from '../errors';
import { createInterrupt } from '../session/interrupts';
import { addUsage, isUsage, ZERO_USAGE } from '../setup/usage';
import { AgentStreamStage, isAgentResult } from '../stages';
import type { Message } from '../types/message';
import type { StopReason, Usage } from '../types/model';
import type { AgentEvent, AgentResultEvent, AgentStreamContext, StoppedBy } from '../types/stages';
import type { Interrupt } from '../types/tool';
import type { AgentView } from '../types/view';
import { frozenCopy } from '../values/freeze';
import { agentResult, NO_INTERRUPTS } from './turn-loop';

/** What {@link runOwnLoop} builds the AgentStreamStage context from. */
export interface OwnLoopInput {
  /** The messages the run adds to the history first (the user's turn), as AgentStreamStage Input handlers may change them. */
  readonly messages: readonly Message[];
  /** The run's invocation state, shared by reference: give the same object to every context the body builds. */
  readonly invocationState: Record<string, unknown>;
  /** The agent view handlers may read, if any. */
  readonly agent?: AgentView | undefined;
  /** Responses to the run's own questions (`context.interrupt()`, ids `agentStream:<name>`), by interrupt id. */
  readonly responses?: Readonly<Record<string, unknown>> | undefined;
}

/** How the body of an own loop says the run ended; {@link runOwnLoop} makes the `agentResult` of it. */
export interface OwnLoopOutcome {
  /** Why the run stopped: the last model result's stop reason, or `'stopped'` when a turn decision stopped it. */
  readonly stopReason: StopReason;
  /** The run's last assistant message, if any. */
  readonly message: Message | undefined;
  /** Token counts summed over the run's model calls (see `addUsage`). */
  readonly usage: Usage;
  /** Who stopped the run: the turn decision's `stoppedBy`, given exactly when `stopReason` is `'stopped'` or `'maxTurns'`. */
  readonly stoppedBy?: StoppedBy | undefined;
  /** The questions the run halted on (a tool's `InterruptSignal`'s `interrupts`), given exactly when `stopReason` is `'interrupt'`. */
  readonly interrupts?: readonly Interrupt[] | undefined;
}

/**
 * The body of an own loop: yields every event of its model and tool invokes
 * and returns how the run ended. It reads the run's input from `context`
 * (after the AgentStreamStage Input handlers), passes `signal` on, and calls
 * `checkpoint` with the state to keep when the run ends here: after the
 * input is in the history, after each completed turn, before it returns
 * (MW-327; `runOwnLoop` hands it to `options.conversation.set`).
 */
export type OwnLoopBody<TState = unknown> = (
  context: AgentStreamContext,
  signal: AbortSignal,
  checkpoint: (state: TState) => TState,
) => AsyncIterator<AgentEvent, OwnLoopOutcome, undefined>;

/**
 * Where an own loop's conversation lives between runs (MW-327): `get` reads
 * it once, when `runOwnLoop` is called; `set` receives the body's checkpoint
 * the run keeps (or that first state again, when a run that kept one fails).
 */
export interface OwnLoopConversation<TState> {
  get(): TState;
  set(state: TState): void;
}

/** Options of {@link runOwnLoop}. */
export interface OwnLoopOptions<TState> {
  /** Cancels the run (MW-115 for the stage invokes the body passes it on to). */
  readonly signal?: AbortSignal | undefined;
  /** Keeps what the run completed (MW-327); without it, the body's checkpoints go nowhere. */
  readonly conversation?: OwnLoopConversation<TState> | undefined;
}

/**
 * Runs `body` as the terminal of one AgentStreamStage invoke and yields what
 * the invoke yields: the body's events, then the `agentResult` made of the
 * outcome it returns (after the AgentStreamStage Output handlers). The
 * context is `{ messages, invocationState, interrupt, agent? }`, frozen,
 * `messages` copied and frozen.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `agentStream`) at once when `input` is not
 *   `{ messages: Message[], invocationState: object }` or `body` is not a function; when the run ends, when
 *   the outcome is not `{ stopReason, message, usage, stoppedBy?, interrupts? }` with `stoppedBy` exactly on
 *   `'stopped'` and `'maxTurns'` and a non-empty `interrupts` exactly on `'interrupt'`; at once when
 *   `options.conversation` is neither undefined nor `{ get, set }` functions.
 * @example
 * ```ts
 * const input = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] }];
 * const run = runOwnLoop(registry, { messages: input, invocationState: {} }, async function* (context, signal) {
 *   const modelContext = createModelContext({ model, messages: context.messages, systemPrompt: undefined, toolSpecs: [], invocationState: context.invocationState });
 *   let result: ModelResultEvent | undefined;
 *   for await (const event of registry.invoke(InvokeModelStage, modelContext, modelTerminal, { signal }))
 *     yield event.type === 'modelResult' ? (result = event) : event;
 *   if (result === undefined) throw new Error('every invoke ends with its result');
 *   return { stopReason: result.stopReason, message: result.message, usage: result.usage };
 * });
 * for await (const event of run) console.log(event.type);
 * ```
 */
export function runOwnLoop<TState = unknown>(
  registry: MiddlewareRegistry,
  input: OwnLoopInput,
  body: OwnLoopBody<TState>,
  options: OwnLoopOptions<TState> = {},
): AsyncGenerator<AgentEvent, void, undefined> {
  if (!isObject(input) || !Array.isArray(input.messages) || !isObject(input.invocationState))
    throw invalid(
      `runOwnLoop(registry, input, body): input must be { messages: Message[], invocationState: object }, got ${describeValue(input)}`,
    );
  if (typeof body !== 'function')
    throw invalid(`runOwnLoop(registry, input, body): body must be an async generator function, got ${describeValue(body)}`);
  const { signal, conversation } = options;
  if (
    conversation !== undefined &&
    (!isObject(conversation) || typeof conversation.get !== 'function' || typeof conversation.set !== 'function')
  )
    throw invalid(
      `runOwnLoop(registry, input, body, options): options.conversation must be { get(), set(state) }, got ${describeValue(conversation)}`,
    );
  const context: { -readonly [K in keyof AgentStreamContext]: AgentStreamContext[K] } = {
    messages: frozenCopy(input.messages, 'input.messages'),
    invocationState: input.invocationState,
    interrupt: createInterrupt(AgentStreamStage.name, undefined, new Map(Object.entries(input.responses ?? {}))),
  };
  if (input.agent !== undefined) context.agent = frozenCopy(input.agent, 'input.agent');
  const keeper = conversation === undefined ? undefined : new Keeper(conversation);
  const terminal = async function* (
    stageContext: AgentStreamContext,
    run: TerminalCall<Kept>,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    let last: Checkpoint | undefined;
    let ended: 'completed' | 'failed' | undefined;
    const checkpoint = (state: TState): TState => {
      last = new Checkpoint(state);
      return state;
    };
    const events = body(stageContext, run.signal, checkpoint) as AsyncIterator<AgentEvent, OwnLoopOutcome, undefined> | undefined;
    if (!isObject(events) || typeof events.next !== 'function')
      throw invalid(
        `runOwnLoop: the body must return an async iterator (write it as an async generator function), got ${describeValue(events)}`,
      );
    // Driven by hand, not by for await: the body's return value is the outcome.
    try {
      for (;;) {
        const step = await events.next();
        if (step.done === true) {
          const result = resultOf(step.value);
          // Written back by the registry only when this call completes (MW-119): yielding the result is not yet that.
          if (keeper !== undefined) (run.state as Draft<Kept>).checkpoint = last;
          yield result;
          ended = 'completed';
          return;
        }
        yield step.value;
      }
    } catch (error) {
      ended = 'failed';
      throw error;
    } finally {
      if (keeper !== undefined && ended === 'completed') keeper.completed = true;
      // Closed before it completed: what it reached is kept if a Wrap handler ends the run now (MW-128).
      else if (keeper !== undefined && ended === undefined) keeper.closed = last;
      await events.return?.();
    }
  };
  if (keeper === undefined)
    return registry.invoke(AgentStreamStage, Object.freeze(context), terminal, signal === undefined ? {} : { signal });
  const state: StateBinding<Kept> = {
    get: () => ({ checkpoint: undefined }),
    set: (next) => {
      keeper.keep(next.checkpoint);
    },
  };
  return keeper.watch(
    registry.invoke(AgentStreamStage, Object.freeze(context), terminal, signal === undefined ? { state } : { signal, state }),
  );
}

/** A body's checkpoint, boxed so the registry's state isolation neither copies nor freezes the body's own value. */
class Checkpoint {
  constructor(readonly state: unknown) {}
}

/** The state of an own loop's AgentStreamStage invoke: the checkpoint its terminal call leaves when it completes. */
interface Kept {
  readonly checkpoint: Checkpoint | undefined;
}

/** What one run of an own loop keeps of its terminal calls, and hands to the loop's conversation (MW-327). */
class Keeper<TState> {
  /** The conversation as it was when the run started. */
  private readonly start: TState;
  /** Set when a terminal call of the run completed. */
  completed = false;
  /** The last checkpoint of the terminal call closed last before it completed. */
  closed: Checkpoint | undefined;
  /** Set while the conversation holds a state of this run. */
  private kept = false;

  constructor(private readonly conversation: OwnLoopConversation<TState>) {
    this.start = conversation.get();
  }

  /** Hands `checkpoint` (the start when there is none) to the conversation. */
  keep(checkpoint: Checkpoint | undefined): void {
    this.conversation.set(checkpoint === undefined ? this.start : (checkpoint.state as TState));
    this.kept = true;
  }

  /** Passes on the run's events, keeping the closed call's checkpoint before an `agentResult` when none completed, and the start again when the run fails. */
  async *watch(events: AsyncGenerator<AgentEvent, void, undefined>): AsyncGenerator<AgentEvent, void, undefined> {
    try {
      for await (const event of events) {
        if (!this.completed && !this.kept && this.closed !== undefined && isAgentResult(event)) this.keep(this.closed);
        yield event;
      }
    } catch (error) {
      if (this.kept) this.conversation.set(this.start);
      throw error;
    }
  }
}

const STOPPED_BY: ReadonlySet<StopReason> = new Set<StopReason>(['stopped', 'maxTurns']);

/** The agentResult of the body's outcome (frozen), checked. */
function resultOf(outcome: OwnLoopOutcome): AgentResultEvent {
  const checked = outcome as Partial<OwnLoopOutcome> | null;
  if (
    !isObject(checked) ||
    typeof checked.stopReason !== 'string' ||
    !(checked.message === undefined || isObject(checked.message)) ||
    !isUsage(checked.usage)
  )
    throw invalid(
      `runOwnLoop: the body must return { stopReason, message, usage, stoppedBy?, interrupts? }, got ${describeValue(outcome)}`,
    );
  const { stoppedBy } = checked;
  if (STOPPED_BY.has(checked.stopReason) !== (stoppedBy !== undefined))
    throw invalid(
      `runOwnLoop: the body's outcome has stopReason '${checked.stopReason}' and stoppedBy ${describeValue(stoppedBy)}; stoppedBy (the turn decision's) goes with 'stopped' and 'maxTurns' only, and they need it`,
    );
  const { interrupts } = checked;
  const halted = Array.isArray(interrupts) && interrupts.length > 0;
  if ((checked.stopReason === 'interrupt') !== halted || (interrupts !== undefined && !Array.isArray(interrupts)))
    throw invalid(
      `runOwnLoop: the body's outcome has stopReason '${checked.stopReason}' and interrupts ${describeValue(interrupts)}; a run halted on questions has stopReason 'interrupt' and a non-empty interrupts list, any other run none`,
    );
  const message = checked.message === undefined ? undefined : frozenCopy(checked.message, 'outcome.message');
  return agentResult(
    checked.stopReason,
    message,
    halted ? frozenCopy(interrupts, 'outcome.interrupts') : NO_INTERRUPTS,
    addUsage(ZERO_USAGE, checked.usage),
    stoppedBy === undefined ? undefined : frozenCopy(stoppedBy, 'outcome.stoppedBy'),
  );
}
