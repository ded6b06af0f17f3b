/**
 * The counts `modelCallLimit` and `toolCallLimit` keep (MW-270 – MW-272):
 * a run's in its invocation state, so a resume of a halted run (in another
 * process too) goes on counting; a session's in the model state, so it
 * commits with the run and travels in the snapshot.
 */
import { castDraft } from 'immer';
import type { Model, ModelCallOptions, ModelStreamEvent } from '../types/model';
import { isAsyncIterable } from '../../util/async-iterable';

/** The invocation-state key of a run's counts. */
export const RUN_COUNTS_KEY = 'staged-middleware.callLimits';
/** The model-state key of the session's count of the agent's model calls. */
export const SESSION_MODEL_CALLS_KEY = 'staged-middleware.modelCalls';
/** The model-state key of the session's counts of tool calls, by tool name. */
export const SESSION_TOOL_CALLS_KEY = 'staged-middleware.toolCalls';

/** Counts by tool name. */
export type CallCounts = Record<string, number>;

/** Where one tool call stood when it was first counted: the counts before it. */
export interface CallPosition {
  /** Calls of its tool in the run before it. */
  readonly run: number;
  /** Calls of every tool in the run before it. */
  readonly runAll: number;
  /** Calls of its tool in the session before it. */
  readonly session: number;
  /** Calls of every tool in the session before it. */
  readonly sessionAll: number;
}

/** A run's counts, as its invocation state keeps them (JSON, so a snapshot of a halted run carries them). */
export interface RunCounts {
  /** The agent's model calls the run made. */
  modelCalls: number;
  /** The tool calls of the run, by name. */
  toolCalls: CallCounts;
  /** The session's tool calls before the run's latest model call, by name. */
  sessionToolCalls: CallCounts;
  /** The tool calls since the latest model call, by name. */
  batch: CallCounts;
  /** The position of each tool call since the latest model call, by tool-use id. */
  positions: Record<string, CallPosition>;
  /** The runs ends a limit asked for, by the name of the handler that asks TurnStage to stop: the reason. */
  stops: Record<string, string>;
}

/** The counts objects {@link runCounts} made: every other value under the key is outside data (a restored snapshot's). */
const made = new WeakSet();

/**
 * The run's counts in `invocationState`: the object a call made earlier,
 * else a new one read from what the key holds, stored there.
 */
export function runCounts(invocationState: Record<string, unknown>): RunCounts {
  const held = ownValue(invocationState, RUN_COUNTS_KEY) as Partial<RunCounts> | undefined;
  if (typeof held === 'object' && made.has(held)) return held as RunCounts;
  const counts: RunCounts = {
    modelCalls: countOf(held?.modelCalls),
    toolCalls: countsOf(held?.toolCalls),
    sessionToolCalls: countsOf(held?.sessionToolCalls),
    batch: countsOf(held?.batch),
    positions: positionsOf(held?.positions),
    stops: stopsOf(held?.stops),
  };
  made.add(counts);
  setOwn(invocationState, RUN_COUNTS_KEY, counts);
  return counts;
}

/**
 * Counts a tool call once, however often its handlers run (a resumed
 * halted turn calls it again), and returns where it stood.
 */
export function countToolCall(counts: RunCounts, toolUseId: string, name: string): CallPosition {
  const known = ownValue(counts.positions, toolUseId) as CallPosition | undefined;
  if (known !== undefined) return known;
  const position: CallPosition = Object.freeze({
    run: ownCount(counts.toolCalls, name),
    runAll: sum(counts.toolCalls),
    session: ownCount(counts.sessionToolCalls, name) + ownCount(counts.batch, name),
    sessionAll: sum(counts.sessionToolCalls) + sum(counts.batch),
  });
  setOwn(counts.toolCalls, name, ownCount(counts.toolCalls, name) + 1);
  setOwn(counts.batch, name, ownCount(counts.batch, name) + 1);
  setOwn(counts.positions, toolUseId, position);
  return position;
}

/** The session's tool counts as the model state holds them (outside data: copied, anything but a count read as 0). */
export function sessionToolCounts(stored: unknown): CallCounts {
  return countsOf(stored);
}

/**
 * The model, writing the session's tool counts to its state draft: `session`
 * when it starts streaming, and `session` plus the tool uses it has asked
 * for so far at each `toolUseStart`, so every call the model asks for is
 * counted with the model call that asks for it, and commits with it. Each
 * write replaces the last, so a call made again (a retry) counts once.
 */
export function modelCountingToolUses(model: Model, session: CallCounts): Model {
  const stream = (request: Parameters<Model['stream']>[0], options: ModelCallOptions<Record<string, unknown>>) => {
    const draft = options.state as Record<string, unknown> | undefined;
    const asked = copyCounts(session);
    const write = (): void => {
      if (draft !== undefined) draft[SESSION_TOOL_CALLS_KEY] = castDraft(copyCounts(asked));
    };
    write();
    const events: unknown = model.stream(request, options);
    const counting = (source: AsyncIterable<ModelStreamEvent>): AsyncIterable<ModelStreamEvent> =>
      (async function* countToolUses() {
        for await (const event of source) {
          if ((event as { type?: unknown } | null)?.type === 'toolUseStart') {
            const { name } = event as { name?: unknown };
            if (typeof name === 'string') {
              setOwn(asked, name, countOf(ownValue(asked, name)) + 1);
              write();
            }
          }
          yield event;
        }
      })();
    // Whatever else the model returns (null, say) reaches the terminal as it is, for it to judge.
    if (isThenable(events))
      return Promise.resolve(events).then((resolved) =>
        isAsyncIterable(resolved) ? counting(resolved as AsyncIterable<ModelStreamEvent>) : resolved,
      );
    return isAsyncIterable(events) ? counting(events as AsyncIterable<ModelStreamEvent>) : events;
  };
  // The model's other properties (its id, say) stay readable through the prototype.
  return Object.assign(Object.create(model) as Model, { stream });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function copyCounts(counts: CallCounts): CallCounts {
  const copy: CallCounts = {};
  for (const key of Object.keys(counts)) setOwn(copy, key, counts[key]);
  return copy;
}

/** A count read from outside data: a whole number >= 0, else 0. */
export function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

/**
 * The model, writing `entries` to its state draft before it streams: they
 * enter the model state with the call. The values are fresh copies the caller
 * never changes afterwards.
 */
export function modelWritingState(model: Model, entries: Readonly<Record<string, unknown>>): Model {
  const stream = (request: Parameters<Model['stream']>[0], options: ModelCallOptions<Record<string, unknown>>) => {
    const draft = options.state as Record<string, unknown> | undefined;
    if (draft !== undefined) for (const [key, value] of Object.entries(entries)) draft[key] = castDraft(value);
    return model.stream(request, options);
  };
  // The model's other properties (its id, say) stay readable through the prototype.
  return Object.assign(Object.create(model) as Model, { stream });
}

function countsOf(value: unknown): CallCounts {
  const counts: CallCounts = {};
  if (typeof value !== 'object' || value === null) return counts;
  for (const key of Object.keys(value)) setOwn(counts, key, countOf(ownValue(value, key)));
  return counts;
}

function positionsOf(value: unknown): Record<string, CallPosition> {
  const positions: Record<string, CallPosition> = {};
  if (typeof value !== 'object' || value === null) return positions;
  for (const key of Object.keys(value)) {
    const held = ownValue(value, key) as Partial<CallPosition> | undefined;
    setOwn(
      positions,
      key,
      Object.freeze({
        run: countOf(held?.run),
        runAll: countOf(held?.runAll),
        session: countOf(held?.session),
        sessionAll: countOf(held?.sessionAll),
      }),
    );
  }
  return positions;
}

function stopsOf(value: unknown): Record<string, string> {
  const stops: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return stops;
  for (const key of Object.keys(value)) {
    const reason = ownValue(value, key);
    if (typeof reason === 'string') setOwn(stops, key, reason);
  }
  return stops;
}

/** An own property only: a tool named `__proto__` or `constructor` is counted like any other. */
function ownValue(record: object, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

function ownCount(record: CallCounts, key: string): number {
  return countOf(ownValue(record, key));
}

/** Sets an own property, `__proto__` included. */
export function setOwn(record: object, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

function sum(counts: CallCounts): number {
  return Object.values(counts).reduce((total, count) => total + count, 0);
}
