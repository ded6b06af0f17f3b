/**
 * Figures against the direct predecessor, the Strands Agents TypeScript
 * SDK's middleware registry (`strands.ts`), in the same process: each
 * figure's baseline is the same work on Strands' registry, so a ratio under 1
 * means ours is faster. Both sides use the same context, the same events
 * (Strands' terminals also return the result event, as its model calls
 * return their message), the same handler functions where the two APIs take
 * the same shape, and the same consumer (`drainToResult`).
 *
 * Four figures mirror ours: `invoke_k0_1ev`, `churn_k5_1ev` (here the whole
 * operation, an add, its removal and the invoke, is divided, not the add and
 * removal alone), `invoke_fixed` and `stream_k5`. Three measure what
 * Strands' design costs by copying or by a generator layer per handler: the
 * model context its agent builds for every model call, the model state it
 * copies around every model call, and Input and Output handlers on a long
 * stream. A ratio here does not compare the floors of `floor.ts`: Strands
 * makes none of the checks the contract asks of an invoke (see
 * `bench/README.md`, "Against Strands").
 */
import { buildContext, history, SYSTEM_PROMPT, TOOL_SPECS } from './context-figures';
import type { TerminalCall } from '../src/core/index';
import type { Figure } from './figures';
import type { Shell } from './floor';
import {
  CONTEXT,
  GuardedStage,
  PlainStage,
  modelState,
  passThrough,
  registryWithWraps,
  stateInvoke,
  streamingTerminal,
  type BenchContext,
  type ModelState,
  type ResultEvent,
} from './fixtures';
import type { Operation } from './harness';
import { core } from './library';
import {
  drainToResult,
  loadStrands,
  strandsPassThrough,
  strandsTerminal,
  type Strands,
  type StrandsHandler,
  type StrandsNext,
  type StrandsRegistry,
  type StrandsStage,
  type StrandsStateStore,
} from './strands';

const { MiddlewareRegistry } = core;

let loaded: Promise<Strands> | undefined;

/** Strands, loaded on the first figure that needs it (its root entry takes a while to import). */
function strands(): Promise<Strands> {
  loaded ??= loadStrands();
  return loaded;
}

/** What the floors of these figures are, in words. */
const STRANDS_FLOOR =
  "Strands' chain inside the shells of `floor.ts`, its terminal called with a fresh `{ stage, signal, state }` as MW-012 asks of every terminal call; with Wrap handlers, the shell closes the inner chains at the end (MW-016)";

/** The inner chains the `next` calls of a floor's invoke entered, to be closed at its end. */
interface Holder {
  held: AsyncIterable<unknown>[];
}

/** A Strands pass-through that records the inner chain it enters, for a floor that closes them as MW-016 asks. */
function holdingPassThrough(holder: Holder): StrandsHandler {
  return async function* passThroughHandler(context, next) {
    const inner = next(context);
    holder.held.push(inner);
    return yield* inner;
  };
}

/**
 * The cheapest invoke of our contract built on Strands' registry: its chain with the given Wrap handlers (holding
 * their inner chains), the terminal given a run object per call, the events through `shell`.
 */
function strandsFloor(
  library: Strands,
  stage: StrandsStage,
  wraps: number,
  deltas: number,
  churn = false,
): (shell: Shell) => () => Promise<unknown> {
  const holder: Holder = { held: [] };
  const registry = library.createRegistry();
  for (let index = 0; index < wraps; index++) registry.add(stage, holdingPassThrough(holder));
  const extra = holdingPassThrough(holder);
  const signal = new AbortController().signal;
  // Strands' terminal ignores its second argument; the object is made per call all the same, as ours makes it.
  const events = strandsTerminal(deltas) as (context: BenchContext, run: TerminalCall<unknown>) => ReturnType<StrandsNext>;
  const terminal: StrandsNext = (context) => events(context, { stage: PlainStage, signal, state: undefined });
  return (shell) => () => {
    if (churn) {
      registry.add(stage, extra);
      registry.remove(stage, extra);
    }
    const held: AsyncIterable<unknown>[] = [];
    holder.held = held;
    return drainToResult(shell(registry.invoke(stage, CONTEXT, terminal), wraps === 0 ? undefined : held)[Symbol.asyncIterator]());
  };
}

/** A Strands registry with `count` pass-through Wrap handlers on `stage`. */
function strandsWithWraps(library: Strands, stage: StrandsStage, count: number): StrandsRegistry {
  const registry = library.createRegistry();
  for (let index = 0; index < count; index++) registry.add(stage, strandsPassThrough());
  return registry;
}

/** The two Input handlers of `invoke_fixed`; Strands calls them with the context alone, ours with the run too. */
const INPUTS = [
  function lowerTemperature(context: BenchContext): BenchContext {
    return { ...context, temperature: 0 };
  },
  function tagConversation(context: BenchContext): BenchContext {
    return { ...context, conversation: `${context.conversation}!` };
  },
];

/** The Output handler of `invoke_fixed`: ours hands it a `MiddlewareResult`, Strands the result itself. */
function keepResult<TResult>(result: TResult): TResult {
  return result;
}

/** `invoke_k0_1ev` against Strands. */
const invokeOneEvent: Figure = {
  name: 'strands_invoke_k0_1ev',
  measures: '`invoke` with no handlers, one event',
  baseline: "Strands' `invoke` with no handlers over the same one event",
  goal: 1,
  async setup() {
    const library = await strands();
    const ours = new MiddlewareRegistry();
    const theirs = library.createRegistry();
    const stage = library.createStage('benchPlain');
    const terminal = streamingTerminal(0);
    const strandsEnd = strandsTerminal(0);
    return {
      ours: () => drainToResult(ours.invoke(PlainStage, CONTEXT, terminal)),
      baseline: () => drainToResult(theirs.invoke(stage, CONTEXT, strandsEnd)),
      floor: strandsFloor(library, stage, 0, 0),
      floorIs: STRANDS_FLOOR,
      checkedFloorIs: STRANDS_FLOOR,
      detail: { events: 1, wrapHandlers: 0 },
    };
  },
};

const CHURN_HANDLERS = 5;

/** `churn_k5_1ev` against Strands: the add, the removal and the invoke, all timed. */
const churn: Figure = {
  name: 'strands_churn_k5_1ev',
  measures: `add and remove one Wrap handler of the stage, then an invoke with ${CHURN_HANDLERS} pass-through Wrap handlers, one event`,
  baseline: "the same add, remove and invoke on Strands' registry",
  goal: 1,
  async setup() {
    const library = await strands();
    const { registry } = registryWithWraps(PlainStage, CHURN_HANDLERS);
    const stage = library.createStage('benchPlain');
    const theirs = strandsWithWraps(library, stage, CHURN_HANDLERS);
    const terminal = streamingTerminal(0);
    const strandsEnd = strandsTerminal(0);
    const extra = passThrough();
    const strandsExtra = strandsPassThrough();
    return {
      ours: () => {
        const dispose = registry.add(PlainStage.Wrap, extra, { name: 'extra' });
        dispose();
        return drainToResult(registry.invoke(PlainStage, CONTEXT, terminal));
      },
      baseline: () => {
        theirs.add(stage, strandsExtra);
        theirs.remove(stage, strandsExtra);
        return drainToResult(theirs.invoke(stage, CONTEXT, strandsEnd));
      },
      floor: strandsFloor(library, stage, CHURN_HANDLERS, 0, true),
      floorIs: STRANDS_FLOOR,
      checkedFloorIs: STRANDS_FLOOR,
      detail: { events: 1, wrapHandlers: CHURN_HANDLERS, churn: 'one add and its removal per invoke' },
    };
  },
};

/** `invoke_fixed` against Strands: 2 Input, 2 Wrap, 1 Output handler, one event. */
const invokeFixed: Figure = {
  name: 'strands_invoke_fixed',
  measures: 'one event through 2 Input, 2 Wrap, 1 Output handlers',
  baseline: "the same handlers on Strands' registry (`addInput`, `add`, `addOutput`)",
  goal: 1,
  async setup() {
    const library = await strands();
    const ours = new MiddlewareRegistry();
    for (const input of INPUTS) ours.add(GuardedStage.Input, input);
    for (let index = 0; index < 2; index++) ours.add(GuardedStage.Wrap, passThrough());
    ours.add(GuardedStage.Output, keepResult);
    const stage = library.createStage('benchGuarded');
    const theirs = library.createRegistry();
    for (const input of INPUTS) theirs.addInput(stage.Input, input);
    for (let index = 0; index < 2; index++) theirs.add(stage, strandsPassThrough());
    theirs.addOutput(stage.Output, keepResult);
    const terminal = streamingTerminal(0);
    const strandsEnd = strandsTerminal(0);
    return {
      ours: () => drainToResult(ours.invoke(GuardedStage, CONTEXT, terminal)),
      baseline: () => drainToResult(theirs.invoke(stage, CONTEXT, strandsEnd)),
      detail: { events: 1, input: 2, wrap: 2, output: 1 },
    };
  },
};

const STREAM_EVENTS = 1000;

/** `stream_k5` against Strands: 5 pass-through Wrap handlers, 1,000 events. */
const streamK5: Figure = {
  name: 'strands_stream_k5',
  measures: '5 pass-through Wrap handlers, 1,000 events',
  baseline: "the same on Strands' registry",
  goal: 1,
  async setup() {
    const library = await strands();
    const { registry } = registryWithWraps(PlainStage, 5);
    const stage = library.createStage('benchPlain');
    const theirs = strandsWithWraps(library, stage, 5);
    const terminal = streamingTerminal(STREAM_EVENTS - 1);
    const strandsEnd = strandsTerminal(STREAM_EVENTS - 1);
    return {
      ours: () => drainToResult(registry.invoke(PlainStage, CONTEXT, terminal)),
      baseline: () => drainToResult(theirs.invoke(stage, CONTEXT, strandsEnd)),
      floor: strandsFloor(library, stage, 5, STREAM_EVENTS - 1),
      floorIs: STRANDS_FLOOR,
      checkedFloorIs: STRANDS_FLOOR,
      detail: { events: STREAM_EVENTS, wrapHandlers: 5 },
    };
  },
};

/** Input and Output handlers on a long stream, where each of Strands' is a generator layer every event crosses. */
const inputOutput: Figure = {
  name: 'strands_input_output',
  measures: '2 Input and 1 Output handlers, no Wrap handler, 1,000 events',
  baseline: "the same handlers on Strands' registry",
  goal: 1,
  async setup() {
    const library = await strands();
    const ours = new MiddlewareRegistry();
    for (const input of INPUTS) ours.add(GuardedStage.Input, input);
    ours.add(GuardedStage.Output, keepResult);
    const stage = library.createStage('benchGuarded');
    const theirs = library.createRegistry();
    for (const input of INPUTS) theirs.addInput(stage.Input, input);
    theirs.addOutput(stage.Output, keepResult);
    const terminal = streamingTerminal(STREAM_EVENTS - 1);
    const strandsEnd = strandsTerminal(STREAM_EVENTS - 1);
    return {
      ours: () => drainToResult(ours.invoke(GuardedStage, CONTEXT, terminal)),
      baseline: () => drainToResult(theirs.invoke(stage, CONTEXT, strandsEnd)),
      detail: { events: STREAM_EVENTS, input: 2, output: 1 },
    };
  },
};

const LARGE_HISTORY = 10_000;

/** The model a Strands context carries: only a reference, never called. */
const STRANDS_MODEL = Object.freeze({ modelId: 'never called' });

/** The model context of an InvokeModelStage call over 10,000 messages, against the context Strands' agent builds. */
const modelContext: Figure = {
  name: 'strands_model_context',
  measures: '`createModelContext()` (agent kit) over a `History` of 10,000 messages',
  baseline:
    "the context Strands' agent builds before every model call from the same 10,000 messages (each message cloned, the system prompt and the tool specs copied)",
  goal: 0.01,
  rounds: 21,
  async setup(quick) {
    const library = await strands();
    const count = quick ? 100 : LARGE_HISTORY;
    const messages = Array.from({ length: count }, (_, index) =>
      library.textMessage(index % 2 === 0 ? 'user' : 'assistant', `message ${index}: ${'lorem ipsum '.repeat(4)}`),
    );
    const invocationState = {};
    return {
      ours: buildContext(history(count)),
      baseline: () => ({
        model: STRANDS_MODEL,
        messages: messages.map((message) => message.clone()),
        systemPrompt: library.cloneSystemPrompt(SYSTEM_PROMPT),
        toolSpecs: library.deepCopy(TOOL_SPECS),
        invocationState,
      }),
      detail: { messages: count },
    };
  },
};

const LARGE_STATE = 100_000;

/**
 * The same model call on Strands, as its agent makes it: a snapshot of the model state (`getAll()`), a store made
 * from it for the model, the model updating the counter through that store, and the store's state written back.
 */
function theirsWithState(library: Strands, count: number): Operation {
  const store = library.createStateStore(modelState(count) as unknown as Record<string, unknown>);
  const registry = library.createRegistry();
  const stage = library.createStage('benchGuarded');
  return async () => {
    const snapshot = store.getAll();
    let forModel: StrandsStateStore | undefined;
    const result = await drainToResult(
      registry.invoke(stage, CONTEXT, async function* countingTerminal() {
        forModel = library.createStateStore(snapshot);
        const usage = forModel.get('usage') as ModelState['usage'];
        usage.outputTokens += 1;
        forModel.set('usage', usage);
        const done: ResultEvent = { type: 'result', text: 'done' };
        yield done;
        return done;
      }),
    );
    if (forModel !== undefined) library.loadState(store, forModel);
    return result;
  };
}

/** A model call with a model state of 100,000 entries, against Strands' copies of the same state. */
const modelStateFigure: Figure = {
  name: 'strands_model_state',
  measures: 'an invoke with a `state` binding over a model state of 100,000 messages (as `state_scaling`)',
  baseline: "the same model call on Strands' registry with the copies its agent makes of the state (snapshot, store, writeback)",
  goal: 0.001,
  rounds: 5,
  async setup(quick) {
    const library = await strands();
    const count = quick ? 1000 : LARGE_STATE;
    return {
      ours: stateInvoke(count, drainToResult),
      baseline: theirsWithState(library, count),
      detail: { messages: count },
    };
  },
};

/** Figures against Strands' registry, in report order. */
export const strandsFigures: readonly Figure[] = [
  invokeOneEvent,
  churn,
  invokeFixed,
  streamK5,
  inputOutput,
  modelContext,
  modelStateFigure,
];
