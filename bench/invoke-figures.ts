/**
 * Figures of the per-invoke fixed cost: invokes that yield one event, as a
 * short tool call does, where what an invoke does once (resolve, start, settle)
 * is not spread over a long stream; registration churn before an invoke; and a
 * stream measured while full garbage collections keep happening.
 */
import { collectGarbage } from './harness';
import type { Figure } from './figures';
import {
  CONTEXT,
  PlainStage,
  type BenchEvent,
  drain,
  nestByHand,
  passThrough,
  registryWithWraps,
  streamingTerminal,
  terminalRun,
  wrapRun,
} from './fixtures';
import { CLOSING_FLOOR } from './floor';

/** One invoke yielding one event, with `count` pass-through Wrap handlers, against the same handlers nested by hand. */
function oneEventFigure(name: string, count: number, goal: number): Figure {
  return {
    name,
    measures: count === 0 ? '`invoke` with no handlers, one event' : `${count} pass-through Wrap handlers, one event`,
    baseline:
      count === 0
        ? 'the terminal drained through nestByHand with no handlers'
        : `the same ${count} handler functions nested by hand around the terminal`,
    goal,
    setup() {
      const terminal = streamingTerminal(0);
      const { registry, handlers } = registryWithWraps(PlainStage, count);
      const runs = handlers.map((_, index) => wrapRun(PlainStage, `pass${index}`));
      const lastRun = terminalRun(PlainStage);
      return {
        ours: () => drain(registry.invoke(PlainStage, CONTEXT, terminal)),
        baseline: () => drain(nestByHand(handlers, terminal, runs, lastRun, CONTEXT)),
        floor: (shell) =>
          count === 0
            ? () => drain(shell(nestByHand(handlers, terminal, runs, lastRun, CONTEXT)))
            : () => {
                const held: AsyncIterable<BenchEvent>[] = [];
                return drain(shell(nestByHand(handlers, terminal, runs, lastRun, CONTEXT, held), held));
              },
        ...(count === 0 ? {} : { floorIs: CLOSING_FLOOR }),
        detail: { events: 1, wrapHandlers: count },
      };
    },
  };
}

const CHURN_HANDLERS = 5;

/** Adding and removing a handler of the invoked stage before each invoke, against the same invoke without. */
const churn: Figure = {
  name: 'churn_k5_1ev',
  measures: `add and remove one Wrap handler of the stage, then the \`invoke_k5_1ev\` invoke`,
  baseline: `the same invoke (${CHURN_HANDLERS} pass-through Wrap handlers, one event) without the add and remove`,
  goal: 1.2,
  setup() {
    const terminal = streamingTerminal(0);
    const { registry } = registryWithWraps(PlainStage, CHURN_HANDLERS);
    const extra = passThrough();
    return {
      ours: () => {
        const dispose = registry.add(PlainStage.Wrap, extra, { name: 'extra' });
        dispose();
        return drain(registry.invoke(PlainStage, CONTEXT, terminal));
      },
      baseline: () => drain(registry.invoke(PlainStage, CONTEXT, terminal)),
      detail: { events: 1, wrapHandlers: CHURN_HANDLERS, churn: 'one add and its disposer per invoke' },
    };
  },
};

const PRESSURE_EVENTS = 1000;
const PRESSURE_HANDLERS = 5;
const PRESSURE_OBJECTS = 50_000;

/**
 * An allocation-heavy neighbour: builds and drops objects of a few shapes,
 * then forces a full collection, the moment V8 drops optimised code that
 * embeds objects which died.
 */
function allocateThenCollect(): void {
  let kept: unknown[] = [];
  for (let index = 0; index < PRESSURE_OBJECTS; index++) {
    kept.push(index % 3 === 0 ? { index, text: `item ${index}` } : index % 3 === 1 ? [index, index + 1] : { index, nested: { index } });
  }
  kept = [];
  collectGarbage();
}

/** `stream_k5` while full collections happen between batches. */
const gcPressure: Figure = {
  name: 'gc_pressure',
  measures: `\`stream_k5\` (${PRESSURE_HANDLERS} pass-through Wrap handlers, 1,000 events) with a full collection after an allocation burst before every batch`,
  baseline: `the same ${PRESSURE_HANDLERS} handler functions nested by hand, under the same pressure`,
  goal: 1.2,
  rounds: 51,
  setup() {
    const terminal = streamingTerminal(PRESSURE_EVENTS - 1);
    const { registry, handlers } = registryWithWraps(PlainStage, PRESSURE_HANDLERS);
    const runs = handlers.map((_, index) => wrapRun(PlainStage, `pass${index}`));
    const lastRun = terminalRun(PlainStage);
    return {
      ours: () => drain(registry.invoke(PlainStage, CONTEXT, terminal)),
      baseline: () => drain(nestByHand(handlers, terminal, runs, lastRun, CONTEXT)),
      floor: (shell) => () => drain(shell(nestByHand(handlers, terminal, runs, lastRun, CONTEXT))),
      beforeBatch: allocateThenCollect,
      detail: {
        events: PRESSURE_EVENTS,
        wrapHandlers: PRESSURE_HANDLERS,
        allocatedPerBatch: PRESSURE_OBJECTS,
        collection: 'full, before every batch',
      },
    };
  },
};

/** Figures of the per-invoke fixed cost, churn and collections. */
export const invokeFigures: readonly Figure[] = [
  oneEventFigure('invoke_k0_1ev', 0, 1.5),
  oneEventFigure('invoke_k5_1ev', 5, 1.3),
  churn,
  gcPressure,
];
