/**
 * `agent_turn`'s floor with the checks (`bench/agent-figures.ts`) does, on
 * every run, the registry's work the rules put on the agent's invokes:
 * held to it here, so that the floor cannot stop doing it unnoticed.
 */
import { isDraft } from 'immer';
import { describe, expect, it } from 'vitest';
import { checkedFloorRun } from '../../bench/agent-figures';
import type { Model, ModelStreamEvent } from '../../src/agent/index';

const TOOL_TURN: readonly ModelStreamEvent[] = [
  { type: 'messageStart', role: 'assistant' },
  { type: 'textDelta', text: 'Looking. ' },
  { type: 'toolUseStart', toolUseId: 'call-0', name: 'lookup_order' },
  { type: 'toolUseDelta', input: '{"id":"A-1042"}' },
  { type: 'messageStop', stopReason: 'toolUse' },
];
const ANSWER_TURN: readonly ModelStreamEvent[] = [
  { type: 'messageStart', role: 'assistant' },
  { type: 'textDelta', text: 'Shipped.' },
  { type: 'messageStop', stopReason: 'endTurn' },
];

/** A model asking for a tool, then answering, that counts its calls in its model-state draft and logs what it got. */
function countingModel(log: unknown[]): Model {
  let calls = 0;
  return {
    async *stream(_request, options) {
      const state = options.state as { calls?: number };
      log.push({ draft: isDraft(state), callsBefore: state.calls ?? 0 });
      state.calls = (state.calls ?? 0) + 1;
      yield* calls++ === 0 ? TOOL_TURN : ANSWER_TURN;
    },
  };
}

describe('checkedFloorRun', () => {
  describe('a run with one tool call', () => {
    it('ends with the run result', async () => {
      expect(await checkedFloorRun(countingModel([]))).toEqual({ type: 'agentResult', stopReason: 'endTurn', interrupts: [] });
    });

    it('tells the instrumentation of each of its six invokes with a frozen info holding the stage and the signal', async () => {
      const infos: { stage: { name: string }; signal: AbortSignal; frozen: boolean }[] = [];
      await checkedFloorRun(countingModel([]), {
        invoke: (info) => {
          infos.push({ ...(info as { stage: { name: string }; signal: AbortSignal }), frozen: Object.isFrozen(info) });
          return undefined;
        },
      });
      expect({
        stages: infos.map((info) => info.stage.name),
        frozen: infos.every((info) => info.frozen),
        oneSignal: new Set(infos.map((info) => info.signal)).size,
      }).toEqual({ stages: ['agentStream', 'invokeModel', 'executeTool', 'turn', 'invokeModel', 'turn'], frozen: true, oneSignal: 1 });
    });

    it('gives each model call a draft of the model state, which starts from what the call before it wrote back', async () => {
      const log: unknown[] = [];
      await checkedFloorRun(countingModel(log));
      expect(log).toEqual([
        { draft: true, callsBefore: 0 },
        { draft: true, callsBefore: 1 },
      ]);
    });
  });
});
