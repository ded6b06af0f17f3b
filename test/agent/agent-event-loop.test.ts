import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, TurnStage, turnAction, type Model, type ModelStreamEvent } from '../../src/agent/index';
import { user, ZERO } from './fixtures';

/** Far more calls than a run makes before a timer due in a millisecond has run, when the loop lets it run at all. */
const CALL_BUDGET = 2000;

const ANSWER: readonly ModelStreamEvent[] = Object.freeze([
  Object.freeze({ type: 'messageStart', role: 'assistant' }),
  Object.freeze({ type: 'textDelta', text: 'again' }),
  Object.freeze({ type: 'messageStop', stopReason: 'endTurn' }),
] as ModelStreamEvent[]);

/** A model answering from memory: every pull settles at once; past the budget it fails, naming the starvation. */
function memoryModel(): { model: Model; calls: () => number } {
  let calls = 0;
  const model: Model = {
    async *stream() {
      if (++calls > CALL_BUDGET) throw new Error(`no timer ran in ${CALL_BUDGET} model calls`);
      yield* ANSWER;
    },
  };
  return { model, calls: () => calls };
}

/** A registry whose turn decision always calls the model again. */
function loopingRegistry(): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();
  registry.add(
    TurnStage.Wrap,
    turnAction(function loopForever() {
      return { decision: 'loopToModel' };
    }),
  );
  return registry;
}

const cancelled = { type: 'agentResult', stopReason: 'cancelled', message: undefined, interrupts: [], usage: ZERO };

describe('Agent', () => {
  describe('with a model that answers from memory and a turn decision that always goes on', () => {
    it('lets a timer cancel the run: agent.cancel() from a setTimeout ends it as cancelled, with the history as it was', async () => {
      const { model, calls } = memoryModel();
      const agent = new Agent({ model, registry: loopingRegistry(), maxTurns: Infinity, messages: [user('before')] });
      const running = agent.invoke('go');
      setTimeout(() => agent.cancel(), 0);
      const result = await running;
      expect([result, agent.messages, calls() < CALL_BUDGET]).toEqual([cancelled, [user('before')], true]);
    });

    it('lets AbortSignal.timeout() end the run as cancelled', async () => {
      const { model, calls } = memoryModel();
      const agent = new Agent({ model, registry: loopingRegistry(), maxTurns: Infinity });
      const result = await agent.invoke('go', { signal: AbortSignal.timeout(1) });
      expect([result, agent.messages, calls() < CALL_BUDGET]).toEqual([cancelled, [], true]);
    });
  });
});
