/**
 * The agent kit and the core are separate entry points of the built package,
 * each build bundling them from shared chunks. What the agent hands the
 * core's invoke works as meant only when the two entry points share the
 * modules behind it:
 * - the model terminal reports its completion to the core's state isolation
 *   with a symbol of the core's, and is pulled with the invoke's shortcut as
 *   an iterator built on the core's `QueuedIterator`;
 * - an agent run's stage invokes read the flag of the run's controller on
 *   every event instead of the signal's `aborted` (a cache miss per read on
 *   Node 20), which the invoke finds in the module that keeps the flags.
 *
 * - a framework's own loop traced with the kit's span conventions is one
 *   span tree only when the agent kit and `tracing` agree on the stages, and
 *   a run's span gets the reply's attributes only then too; its model and
 *   tool calls (`callModel`, `callTools`) run on the core's registry;
 * - a run answered for by `agentErrorAnswer` leaves the history as it was
 *   only when the run and the core's state writeback agree.
 *
 * An MCP toolset's tools reach the agent only when the MCP entry point and
 * the agent kit share the key tools are contributed under.
 *
 * Run from the installed package in both formats (the consumer script runs
 * once per format): a Wrap handler's `next()` must hand out the terminal's own
 * iterator (no recorder around it), the state of the completed call must be
 * written back, and the run's signal must be read less often than the model
 * streams events (each invoke reading it would read it several times per event).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScript } from './consumer';

interface Observed {
  readonly modelTerminal: unknown;
  readonly ownLoop: unknown;
  readonly ownLoopCalls: unknown;
  readonly runSignal: { readonly modelEvents: number; readonly reads: number; readonly stopReason: string };
  readonly mcp: unknown;
  readonly replies: unknown;
}

describe.each([
  ['ESM', 'esm.mjs'],
  ['CommonJS', 'cjs.cjs'],
])('the agent kit of the %s build, under the core registry of the same build', (_format, script) => {
  let observed: Observed;
  beforeAll(() => {
    observed = JSON.parse(runScript(script)) as Observed;
  });

  it("hands its model terminal to a Wrap handler as it is, and the completed call's state is written back", () => {
    expect(observed.modelTerminal).toEqual({ handedOutAsReturned: true, written: { calls: 1 } });
  });

  it("gives a framework's own loop, traced, one span tree under its run's invoke_agent span, and keeps its checkpoint as it is", () => {
    expect(observed.ownLoop).toEqual({
      spans: [
        'invokeModel terminal <- chat',
        'chat <- agentStream terminal',
        'turn terminal <- turn',
        'turn <- agentStream terminal',
        'agentStream terminal <- invoke_agent',
        'invoke_agent <- none',
      ],
      result: { stopReason: 'endTurn', usage: { inputTokens: 2, outputTokens: 1, totalTokens: 3 } },
      kept: [{ turns: 1, frozen: false }],
    });
  });

  it('offers the tools of an MCP toolset of the same build and answers their calls', () => {
    expect(observed.mcp).toEqual({
      bundle: 'mcp:calc',
      offered: ['calc_add', 'calc_quota'],
      results: [
        { name: 'calc_add', status: 'success', content: [{ type: 'json', json: { sum: 5 } }] },
        { name: 'calc_quota', status: 'error', content: 'error' },
      ],
      codes: ['none', 'ERR_MCP_TOOL_ERROR'],
    });
  });

  it("puts the reply's attributes on a traced run's span, and answers for a failed run keeping the history", () => {
    expect(observed.replies).toEqual({
      replyId: 'uuid',
      input: [{ role: 'user', content: [{ type: 'text', text: 'Where am I?' }] }],
      output: [{ role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'g1', name: 'geolocate', input: {} }] }],
      external: [{ type: 'toolUse', name: 'geolocate', toolUseId: 'g1', input: {} }],
      answer: ['endTurn', [{ type: 'text', text: 'Refused.' }], 0],
    });
  });

  it("runs a framework's own turn with callModel and callTools: every event, the model result, the written state, the question", () => {
    expect(observed.ownLoopCalls).toEqual({
      events: ['toolUseStart', 'toolUseDelta', 'toolUseStart', 'toolUseDelta', 'messageStop', 'modelResult', 'interrupt', 'toolResult'],
      model: { stopReason: 'toolUse', toolUses: 2, modelState: { turn: 1 } },
      tools: { results: ['l1'], interrupts: ['executeTool:q1:sure'] },
    });
  });

  it("reads its run signal's aborted fewer times than the model streams events", () => {
    expect(observed.runSignal.stopReason).toBe('endTurn');
    expect(observed.runSignal.reads).toBeLessThan(observed.runSignal.modelEvents);
  });
});
