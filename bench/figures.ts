/**
 * The figures of the benchmark: for each, the operation we measure, the
 * baseline it is divided by, and the goal the ratio must meet (lower is better).
 */
import type { InputHandler, OutputHandler } from '../src/core/index';
import type { Operation } from './harness';
import {
  CONTEXT,
  GuardedStage,
  PlainStage,
  drain,
  modelState,
  nestByHand,
  passThrough,
  registryWithWraps,
  stateInvoke,
  streamingTerminal,
  terminalRun,
  wrapRun,
  type BenchContext,
  type BenchEvent,
  type ResultEvent,
} from './fixtures';
import { agentFigures } from './agent-figures';
import { aiSdkFigures } from './ai-sdk-figures';
import { contextFigures } from './context-figures';
import { durableFigures } from './durable-figures';
import { historyFigures } from './history-figures';
import { invokeFigures } from './invoke-figures';
import { strandsFigures } from './strands-figures';
import { CLOSING_FLOOR, type Shell } from './floor';
import { core } from './library';

const { MiddlewareRegistry, MiddlewareResult } = core;

/** What a figure's setup hands the harness. */
export interface FigurePair {
  /** The operation measured. */
  readonly ours: Operation;
  /** The operation it is divided by. */
  readonly baseline: Operation;
  /** Fixed facts to report with the figure (sizes, counts). */
  readonly detail?: Readonly<Record<string, unknown>>;
  /**
   * The operation with the cheapest shell any implementation needs in place of ours, given the shell: measured
   * against the same baseline with the minimal shell and with the checked one (see `floor.ts`); `checked` says
   * which, for a figure whose contract asks for checks beyond the shell's own (the agent's abort race).
   */
  readonly floor?: (shell: Shell, checked: boolean) => Operation;
  /** What the floor is, in words, when it is more than the minimal shell around the baseline. */
  readonly floorIs?: string;
  /** What the floor with the checks is, in words, when it does more than the checked shell around the baseline. */
  readonly checkedFloorIs?: string;
  /** Untimed work before every timed batch of both sides (see `MeasureOptions.beforeBatch`). */
  readonly beforeBatch?: () => void;
  /** How many items (stream parts) one operation handles: the detail then gives ours minus the baseline per item. */
  readonly perItem?: number;
}

/** One figure of the benchmark. */
export interface Figure {
  /** Key in `results.json` and the filter name on the command line. */
  readonly name: string;
  /** What is measured (ours), in words, as the table of docs/performance.md shows it. */
  readonly measures: string;
  /** What the ratio is divided by, in words. */
  readonly baseline: string;
  /** The ratio must be at or under this. */
  readonly goal: number;
  /** Rounds to measure in a full run (expensive operations use fewer). */
  readonly rounds?: number;
  /** Builds both operations; called once before measuring. */
  setup(quick: boolean): FigurePair | Promise<FigurePair>;
}

const STREAM_EVENTS = 1000;

/** `k` pass-through Wrap handlers through the registry against the same handlers nested by hand. */
function streamFigure(name: string, count: number, goal: number): Figure {
  return {
    name,
    measures: count === 0 ? '`invoke` with no handlers, 1,000 events' : `${count} pass-through Wrap handlers, 1,000 events`,
    baseline:
      count === 0 ? 'for await directly over the terminal' : `the same ${count} handler functions nested by hand around the terminal`,
    goal,
    setup() {
      // One event fewer than STREAM_EVENTS deltas plus the result: STREAM_EVENTS events in all.
      const terminal = streamingTerminal(STREAM_EVENTS - 1);
      const { registry, handlers } = registryWithWraps(PlainStage, count);
      const runs = handlers.map((_, index) => wrapRun(PlainStage, `pass${index}`));
      const lastRun = terminalRun(PlainStage);
      return {
        ours: () => drain(registry.invoke(PlainStage, CONTEXT, terminal)),
        baseline: () => drain(nestByHand(handlers, terminal, runs, lastRun, CONTEXT)),
        floor: (shell) => () => drain(shell(nestByHand(handlers, terminal, runs, lastRun, CONTEXT))),
        detail: { events: STREAM_EVENTS, wrapHandlers: count },
      };
    },
  };
}

/** Two Input, two Wrap and one Output handler around a one-event terminal. */
const invokeFixed: Figure = {
  name: 'invoke_fixed',
  measures: 'one event through 2 Input, 2 Wrap, 1 Output handlers',
  baseline: 'the same 2 Input, 2 Wrap and 1 Output handlers composed by hand',
  goal: 1.3,
  setup() {
    const inputs: InputHandler<BenchContext>[] = [
      function lowerTemperature(context) {
        return { ...context, temperature: 0 };
      },
      function tagConversation(context) {
        return { ...context, conversation: `${context.conversation}!` };
      },
    ];
    const wraps = [passThrough(), passThrough()];
    const output: OutputHandler<ResultEvent> = function keepResult(result) {
      return result;
    };
    const terminal = streamingTerminal(0);
    const registry = new MiddlewareRegistry();
    for (const input of inputs) registry.add(GuardedStage.Input, input);
    for (const wrap of wraps) registry.add(GuardedStage.Wrap, wrap);
    registry.add(GuardedStage.Output, output);
    const runs = wraps.map((_, index) => wrapRun(GuardedStage, `pass${index}`));
    const lastRun = terminalRun(GuardedStage);
    // The floor adds the minimal shell, which closes the inner chains at the end as MW-016 asks (see `closeHeld`).
    const handComposed = async (shell: Shell | undefined): Promise<unknown> => {
      let context = CONTEXT;
      // A framework handing its hooks the signal makes a run object per call too.
      for (const input of inputs) context = await input(context, { stage: GuardedStage, signal: lastRun.signal, handler: 'input' });
      const held: AsyncIterable<BenchEvent>[] | undefined = shell === undefined ? undefined : [];
      const nested = nestByHand<BenchEvent>(wraps, terminal, runs, lastRun, context, held);
      const last = await drain(shell === undefined ? nested : shell(nested, held));
      return (await output(new MiddlewareResult(last as ResultEvent), { stage: GuardedStage, signal: lastRun.signal, handler: 'output' }))
        .value;
    };
    return {
      ours: () => drain(registry.invoke(GuardedStage, CONTEXT, terminal)),
      baseline: () => handComposed(undefined),
      floor: (shell) => () => handComposed(shell),
      floorIs: CLOSING_FLOOR,
      detail: { events: 1, input: 2, wrap: 2, output: 1 },
    };
  },
};

/** Holding for the Output phase with a guard, against no Output phase at all. */
const outputGuard: Figure = {
  name: 'output_guard',
  measures: 'cost per non-result event with Output handlers and an `isResult` guard',
  baseline: 'the same guarded stream with no Output handler (events pass straight through)',
  goal: 1.05,
  setup() {
    const terminal = streamingTerminal(STREAM_EVENTS);
    const withOutput = new MiddlewareRegistry();
    withOutput.add(GuardedStage.Output, function keepResult(result) {
      return result;
    });
    const without = new MiddlewareRegistry();
    return {
      ours: () => drain(withOutput.invoke(GuardedStage, CONTEXT, terminal)),
      baseline: () => drain(without.invoke(GuardedStage, CONTEXT, terminal)),
      detail: { nonResultEvents: STREAM_EVENTS, resultEvents: 1, output: 1 },
    };
  },
};

const LARGE_STATE = 100_000;
const SMALL_STATE = 10;

const stateScaling: Figure = {
  name: 'state_scaling',
  measures: 'an invoke with a `state` binding over 100,000 messages',
  baseline: `the same invoke over a ${SMALL_STATE}-message state (ours: ${LARGE_STATE} messages)`,
  goal: 2,
  setup(quick) {
    const large = quick ? 1000 : LARGE_STATE;
    return {
      ours: stateInvoke(large),
      baseline: stateInvoke(SMALL_STATE),
      detail: { messages: large, baselineMessages: SMALL_STATE },
    };
  },
};

const stateVsClone: Figure = {
  name: 'state_vs_clone',
  measures: 'the same invoke',
  baseline: `structuredClone of the same ${LARGE_STATE}-message state (one per invoke)`,
  goal: 0.001,
  rounds: 5,
  setup(quick) {
    const large = quick ? 1000 : LARGE_STATE;
    const state = modelState(large);
    return {
      ours: stateInvoke(large),
      baseline: async () => structuredClone(state),
      detail: { messages: large },
    };
  },
};

const CONSTRAINED_ADDS = 10_000;

/**
 * Registers `count` Wrap handlers on a fresh registry, then resolves the chain
 * once. With constraints they form two interleaved pipelines: `a<i>` runs after
 * `a<i-1>` and before `b<i-1>`, `b<i>` runs after `b<i-1>`, so half the adds
 * have an edge in and an edge out when they are added.
 */
function addThenResolve(count: number, constrained: boolean): Operation {
  const handler = passThrough();
  return () => {
    const registry = new MiddlewareRegistry({ onWarning: () => undefined });
    for (let index = 0; index < count / 2; index++) {
      if (!constrained) {
        registry.add(PlainStage.Wrap, handler, { id: `a${index}` });
        registry.add(PlainStage.Wrap, handler, { id: `b${index}` });
        continue;
      }
      const previous = index - 1;
      registry.add(
        PlainStage.Wrap,
        handler,
        index === 0 ? { id: 'a0' } : { id: `a${index}`, after: [`a${previous}`], before: [`b${previous}`] },
      );
      registry.add(PlainStage.Wrap, handler, index === 0 ? { id: 'b0' } : { id: `b${index}`, after: [`b${previous}`] });
    }
    return registry.describe(PlainStage).length;
  };
}

/** Adding handlers with ordering constraints against adding the same handlers without. */
const constrainedAdd: Figure = {
  name: 'constrained_add',
  measures: '10,000 `add` calls with ordering constraints (two interleaved pipelines), then one resolve',
  baseline: `${CONSTRAINED_ADDS} adds without constraints, then one resolve`,
  goal: 3,
  rounds: 15,
  setup(quick) {
    const count = quick ? 200 : CONSTRAINED_ADDS;
    return {
      ours: addThenResolve(count, true),
      baseline: addThenResolve(count, false),
      detail: { adds: count, constraintsPerAdd: 'after the previous handler of its pipeline; half also before one of the other pipeline' },
    };
  },
};

/** Every figure, in report order. */
export const FIGURES: readonly Figure[] = [
  streamFigure('stream_k0', 0, 1.3),
  streamFigure('stream_k5', 5, 1.1),
  streamFigure('stream_k20', 20, 1.1),
  invokeFixed,
  ...invokeFigures.slice(0, 3),
  outputGuard,
  stateScaling,
  stateVsClone,
  constrainedAdd,
  ...invokeFigures.slice(3),
  ...contextFigures,
  ...agentFigures,
  ...historyFigures,
  ...aiSdkFigures,
  ...durableFigures,
  ...strandsFigures,
];
