/**
 * A figure over the durable layer (MW-242): a run of ten model steps, each a
 * model stream of 100 events, through InvokeModelStage with `durableSteps`
 * on a fresh in-memory journal, against the same ten streams run as steps
 * of the in-memory runner's bare `run()`, recording the events as they are.
 */
import type { InvokeModelContext, InvokeModelEvent, ModelStreamEvent } from '../src/agent/index';
import type { JsonValue } from '../src/durable/index';
import type { Figure } from './figures';
import { agentKit, core, durableKit } from './library';

const { InvokeModelStage } = agentKit;
const { MiddlewareRegistry } = core;
const { InMemoryJournal, durableSteps } = durableKit;

const STEPS = 10;
const STEP_EVENTS = 100;

/** One model stream: messageStart, text deltas, messageStop, then the model result; 100 events in all. */
const STREAM: readonly InvokeModelEvent[] = Object.freeze([
  Object.freeze({ type: 'messageStart', role: 'assistant' }),
  ...Array.from({ length: STEP_EVENTS - 3 }, (_, index) => Object.freeze({ type: 'textDelta', text: `word${index} ` })),
  Object.freeze({ type: 'messageStop', stopReason: 'endTurn' }),
  Object.freeze({
    type: 'modelResult',
    message: Object.freeze({ role: 'assistant', content: Object.freeze([Object.freeze({ type: 'text', text: 'done' })]) }),
    stopReason: 'endTurn',
    usage: Object.freeze({ inputTokens: 1, outputTokens: 1, totalTokens: 2 }),
  }),
] as (ModelStreamEvent | InvokeModelEvent)[]);

async function* terminal(): AsyncGenerator<InvokeModelEvent, void, undefined> {
  yield* STREAM;
}

const CONTEXT = {
  model: { stream: terminal },
  messages: [],
  systemPrompt: [],
  toolSpecs: [],
  invocationState: {},
} as unknown as InvokeModelContext;

const durableStep: Figure = {
  name: 'durable_step',
  measures: `one durable run of ${String(STEPS)} model steps of ${String(STEP_EVENTS)} events each: \`durableSteps\` on a fresh in-memory journal, each step an InvokeModelStage invoke whose events are streamed and recorded in their JSON form`,
  baseline: `the same ${String(STEPS)} streams as steps of the in-memory runner's bare \`run()\`, each recording the events it collected`,
  // A budget, not a floor: the layer computes each event's JSON form (MW-244), which the baseline does not.
  goal: 5,
  rounds: 51,
  setup() {
    const registry = new MiddlewareRegistry();
    return {
      ours: async () => {
        const runner = new InMemoryJournal().runner('bench');
        const dispose = registry.use(durableSteps(runner));
        let last: unknown;
        for (let step = 0; step < STEPS; step++)
          for await (const event of registry.invoke(InvokeModelStage, CONTEXT, terminal)) last = event;
        dispose();
        return last;
      },
      baseline: async () => {
        const runner = new InMemoryJournal().runner('bench');
        let last: unknown;
        for (let step = 0; step < STEPS; step++) {
          last = await runner.run(`invokeModel:${String(step + 1)}`, async () => {
            const events: unknown[] = [];
            for await (const event of terminal()) events.push(event);
            return events as JsonValue;
          });
        }
        return last;
      },
      detail: { steps: STEPS, eventsPerStep: STEP_EVENTS },
    };
  },
};

/** Figures over durable runs. */
export const durableFigures: readonly Figure[] = [durableStep];
