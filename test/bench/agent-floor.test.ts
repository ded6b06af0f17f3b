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

/** The contexts of the invokes of one run of the floor, in order, as its instrumentation is told of them. */
async function contextsOfRun(): Promise<Record<string, unknown>[]> {
  const contexts: Record<string, unknown>[] = [];
  await checkedFloorRun(countingModel([]), {
    invoke: (info) => {
      contexts.push(info.context as Record<string, unknown>);
      return undefined;
    },
  });
  return contexts;
}

/** The part of a TurnStage context these tests read. */
interface TurnContext {
  readonly turn: { readonly index: number; readonly stopReason: string };
  readonly ending: boolean;
  readonly usage: unknown;
}

describe('checkedFloorRun', () => {
  describe('a run with one tool call', () => {
    it('ends with the run result', async () => {
      expect(await checkedFloorRun(countingModel([]))).toEqual({
        type: 'agentResult',
        stopReason: 'endTurn',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Shipped.' }] },
        interrupts: [],
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      });
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

    it('gives every context one frozen agent view holding the frozen copies of the tool specs (MW-138, MW-106)', async () => {
      const contexts = await contextsOfRun();
      const views = new Set(contexts.map((context) => context.agent));
      const [view] = views as Set<{ name: string; sessionId: unknown; tools: readonly { name: string }[] }>;
      expect({
        contexts: contexts.length,
        views: views.size,
        frozen: Object.isFrozen(view),
        name: view?.name,
        tools: view?.tools.map((spec) => spec.name),
        specsFrozen: Object.isFrozen(view?.tools) && view?.tools.every((spec) => Object.isFrozen(spec)),
      }).toEqual({ contexts: 6, views: 1, frozen: true, name: 'agent', tools: ['lookup_order', 'check_stock'], specsFrozen: true });
      // The model call's context lists the same specs as the view.
      expect((contexts[1] as { toolSpecs: unknown }).toolSpecs).toBe(view?.tools);
    });

    it("makes an agent's setup for each run: a new view, new spec copies and new system blocks every time", async () => {
      const runs: { view: unknown; systemPrompt: unknown }[] = [];
      for (let run = 0; run < 2; run++) {
        await checkedFloorRun(countingModel([]), {
          invoke: (info) => {
            const context = info.context as { agent: unknown; systemPrompt?: unknown };
            if (context.systemPrompt !== undefined) runs.push({ view: context.agent, systemPrompt: context.systemPrompt });
            return undefined;
          },
        });
      }
      expect(runs).toHaveLength(4);
      expect(runs[0]?.view).toBe(runs[1]?.view);
      expect(runs[2]?.view).not.toBe(runs[0]?.view);
      expect(runs[2]?.systemPrompt).not.toBe(runs[0]?.systemPrompt);
      expect(runs[0]?.systemPrompt).toEqual([{ text: 'You are a helpful shop assistant.' }]);
    });

    it("gives each tool call an interrupt function of its own, and the turn's context its number, stop reason and usage (MW-113, MW-125)", async () => {
      const contexts = await contextsOfRun();
      const [, , tool, firstTurn, , lastTurn] = contexts as [unknown, unknown, { interrupt: unknown }, TurnContext, unknown, TurnContext];
      expect(typeof tool.interrupt).toBe('function');
      expect(() => (tool.interrupt as (request: { name: string }) => unknown)({ name: 'ok' })).toThrow('tool use "call-0" asked "ok"');
      const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
      expect(
        [firstTurn, lastTurn].map((turn) => ({ ...turn.turn, ending: turn.ending, usage: turn.usage, frozen: Object.isFrozen(turn) })),
      ).toEqual([
        expect.objectContaining({ index: 1, stopReason: 'toolUse', ending: false, usage, frozen: true }),
        expect.objectContaining({ index: 2, stopReason: 'endTurn', ending: true, usage, frozen: true }),
      ]);
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
