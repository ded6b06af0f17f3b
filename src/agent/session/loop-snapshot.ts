/**
 * Halting and resuming a framework's own loop (MW-314): its history, model
 * state, usage and the turn it halted in, as the versioned JSON snapshot the
 * reference agent writes (MW-136), so a loop halted in one process resumes
 * in another, from any session store.
 */
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalid } from '../errors';
import type { Message, ToolResultBlock, ToolUseBlock } from '../types/message';
import type { Usage } from '../types/model';
import type { AgentSnapshot } from '../types/snapshot';
import type { Interrupt } from '../types/tool';
import { History } from './history';
import { readSnapshot, toSnapshot } from './snapshot';

/** A turn halted in its tool calls: the questions it waits on, and what it has found so far. */
export interface HaltedTurn {
  /** The questions waiting for answers (non-empty): the `interrupts` of the `InterruptSignal`s its tool calls threw. */
  readonly interrupts: readonly Interrupt[];
  /** The assistant message whose tool uses the turn runs (the history's last message). */
  readonly message: Message;
  /** The results of the tool uses that ran to the end, each answering a tool use of `message`. */
  readonly results: readonly ToolResultBlock[];
  /** Answers already given, by interrupt id (a resume that answered some of several questions). */
  readonly responses?: Readonly<Record<string, unknown>> | undefined;
}

/** What an own loop keeps between runs. */
export interface LoopState {
  /** The history (a frozen array of frozen messages, as `History.messages` returns). */
  readonly messages: readonly Message[];
  /** The model state. */
  readonly modelState: Readonly<Record<string, unknown>>;
  /** Token counts summed over the loop's runs (see `addUsage`). */
  readonly usage: Usage;
  /** The turn the last run halted in, or undefined when nothing is pending. */
  readonly halted?: HaltedTurn | undefined;
}

const PATH = 'snapshotLoop(state)';

/**
 * The state of an own loop as an agent snapshot (frozen JSON, the format of
 * `agent.snapshot()`), for a session store or any other place that keeps
 * JSON. It is checked as {@link restoreLoop} will read it, so a state that
 * could not be resumed is refused now rather than then.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the part that is not JSON or does not fit: `halted`
 *   without interrupts, a `halted.message` that is not an assistant message with tool uses, a result that
 *   answers none of them or one answered twice.
 * @example
 * ```ts
 * const history = new History([halted.message]);
 * await store.save('ticket-4711', snapshotLoop({ messages: history.messages, modelState, usage, halted }));
 * ```
 */
export function snapshotLoop(state: LoopState): AgentSnapshot {
  if (!isObject(state) || !Array.isArray(state.messages))
    throw invalid(`${PATH}: state must be { messages, modelState, usage, halted? }, got ${describeValue(state)}`);
  const { halted } = state;
  if (halted !== undefined && !isObject(halted))
    throw invalid(
      `${PATH}: state.halted must be a halted turn { interrupts, message, results, responses? } or undefined, got ${describeValue(halted)}`,
    );
  if (halted !== undefined) checkHalted(halted);
  const history = new History(state.messages);
  const snapshot = toSnapshot(
    {
      history,
      modelState: state.modelState,
      usage: state.usage,
      halt:
        halted === undefined
          ? undefined
          : {
              interrupts: halted.interrupts,
              responses: new Map(Object.entries(halted.responses ?? {})),
              input: [],
              turn: {
                message: halted.message,
                toolUses: [],
                results: new Map(halted.results.map((result) => [result.toolUseId, result])),
                terminating: new Set(),
              },
              invocationState: {},
            },
    },
    PATH,
  );
  // Read back as a resume will read it: whatever it refuses is refused now.
  readSnapshot(snapshot, PATH);
  return snapshot;
}

/** The parts of a halted turn the snapshot's own checks cannot see once they are in the snapshot's maps. */
function checkHalted(halted: HaltedTurn): void {
  const { interrupts, results, responses } = halted;
  if (!Array.isArray(interrupts) || interrupts.length === 0 || !interrupts.every((interrupt) => isObject(interrupt)))
    throw invalid(
      `${PATH}: state.halted.interrupts must be the non-empty array of the interrupts waiting, got ${describeValue(interrupts)}`,
    );
  if (responses !== undefined && !isObject(responses))
    throw invalid(`${PATH}: state.halted.responses must be an object of answers by interrupt id, got ${describeValue(responses)}`);
  if (!Array.isArray(results) || results.some((result) => !isObject(result)))
    throw invalid(`${PATH}: state.halted.results must be an array of toolResult blocks, got ${describeValue(results)}`);
  const ids = (results as readonly ToolResultBlock[]).map((result) => result.toolUseId);
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated !== undefined)
    throw invalid(
      `${PATH}: state.halted.results answers tool use ${typeof repeated === 'string' ? `"${repeated}"` : describeValue(repeated)} twice`,
    );
}

/** An own loop's state read back from an agent snapshot: the history, model state, usage and halted turn. */
export interface RestoredLoop {
  /** A history holding the snapshot's messages. */
  readonly history: History;
  /** The model state (frozen). */
  readonly modelState: Readonly<Record<string, unknown>>;
  /** Token counts summed over the loop's runs. */
  readonly usage: Usage;
  /** The turn to finish first, or undefined when nothing is pending. */
  readonly halted: HaltedTurn | undefined;
  /** The tool uses of the halted turn that have no result yet, in message order: a resume runs these (empty when nothing is pending). */
  readonly pending: readonly ToolUseBlock[];
}

/**
 * Reads an agent snapshot (of {@link snapshotLoop}, or of an agent halted in
 * a turn) back into an own loop's state, checked and copied as
 * `new Agent({ snapshot })` reads one. A resume runs the `pending` tool uses
 * with `createInterrupt(ExecuteToolStage.name, toolUseId, responses)`, so each
 * question finds its answer, then appends `halted.results` and the new results
 * in message order, as one user message.
 *
 * @throws MiddlewareError `ERR_SNAPSHOT_VERSION` for a later format version; `ERR_INVALID_OPTIONS` naming the part
 *   that does not fit the format, or for a run halted before any turn (a question of the whole run), which a loop
 *   of its own resumes from its input instead.
 * @example
 * ```ts
 * const { history, halted, pending } = restoreLoop(await store.load('ticket-4711'));
 * const responses = new Map([[halted?.interrupts[0]?.id ?? '', { approved: true }]]);
 * for (const toolUse of pending) {
 *   const interrupt = createInterrupt(ExecuteToolStage.name, toolUse.toolUseId, responses);
 *   console.log(toolUse.name, interrupt, history.messages.length);
 * }
 * ```
 */
export function restoreLoop(snapshot: unknown): RestoredLoop {
  const path = 'restoreLoop(snapshot)';
  const conversation = readSnapshot(snapshot, path);
  const { halt } = conversation;
  if (halt !== undefined && halt.turn === undefined)
    throw invalid(
      `${path}: the snapshot halted before a turn (a question about the whole run); a loop of its own runs its input again instead`,
    );
  const turn = halt?.turn;
  const halted: HaltedTurn | undefined =
    halt === undefined || turn === undefined
      ? undefined
      : Object.freeze({
          interrupts: halt.interrupts,
          message: turn.message,
          results: Object.freeze([...turn.results.values()]),
          responses: Object.freeze(Object.fromEntries(halt.responses)),
        });
  const pending = turn === undefined ? [] : turn.toolUses.filter((toolUse) => !turn.results.has(toolUse.toolUseId));
  return Object.freeze({
    history: conversation.history,
    modelState: conversation.modelState,
    usage: conversation.usage,
    halted,
    pending: Object.freeze(pending),
  });
}
