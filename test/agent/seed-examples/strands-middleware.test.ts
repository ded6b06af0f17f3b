/**
 * Strands' InvokeModelStage middleware, ported (its pull request "result
 * handling, model-state isolation, and system-prompt fidelity"): the last
 * event of the chain is the result the integration site reads, Output
 * handlers take and return a `MiddlewareResult`, the model state is written
 * back only when the chain succeeds (deletions included), system-prompt
 * blocks keep their cache points, an Output handler can keep the tools from
 * running, and the two mistakes its review found fail loudly.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import {
  Agent,
  ExecuteToolStage,
  InvokeModelStage,
  createModelContext,
  isModelResult,
  modelTerminal,
  type ModelResultEvent,
} from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn, toolUseTurn } from '../../../src/testing/index';

/** Strands' integration site: every event goes on; the last one is the result. */
async function streamMessages(registry: MiddlewareRegistry, model: ScriptedModel, holder: { modelState: Record<string, unknown> }) {
  const events: string[] = [];
  let last: unknown;
  const context = createModelContext({
    model,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    systemPrompt: undefined,
    toolSpecs: [],
    invocationState: {},
  });
  const state = { get: () => holder.modelState, set: (next: Record<string, unknown>) => void (holder.modelState = next) };
  for await (const event of registry.invoke(InvokeModelStage, context, modelTerminal, { state })) {
    events.push(event.type);
    last = event;
  }
  return { events, result: isModelResult(last) ? last : undefined };
}

describe('Strands InvokeModelStage middleware, ported', () => {
  it("reads the result as the chain's last event, after the Output handler replaced it", async () => {
    const registry = new MiddlewareRegistry();
    registry.add(InvokeModelStage.Output, function endTurn(result) {
      const { message, usage } = result.value;
      return result.replace({ type: 'modelResult', stopReason: 'endTurn', message, usage } satisfies ModelResultEvent);
    });
    const { events, result } = await streamMessages(registry, new ScriptedModel([toolUseTurn([{ name: 'search', input: {} }])]), {
      modelState: {},
    });
    expect([events.at(-1), events.filter((type) => type === 'modelResult').length, result?.stopReason]).toEqual([
      'modelResult',
      1,
      'endTurn',
    ]);
  });

  it('writes the model state back, deletions included, only when the chain succeeds', async () => {
    const registry = new MiddlewareRegistry();
    const holder = { modelState: { responseId: 'r-0', stale: true } as Record<string, unknown> };
    const model = new ScriptedModel([
      { ...textTurn('one'), stateWrites: { responseId: 'r-1' }, stateDeletes: ['stale'] },
      { ...failingTurn(new Error('overloaded')), stateWrites: { responseId: 'r-broken' } },
    ]);
    await streamMessages(registry, model, holder);
    const kept = holder.modelState;
    const failed = await streamMessages(registry, model, holder).then(
      () => undefined,
      (error: unknown) => (error as Error).message,
    );
    expect([kept, failed, holder.modelState]).toEqual([{ responseId: 'r-1' }, 'overloaded', { responseId: 'r-1' }]);
  });

  it('keeps the cache points of system-prompt blocks through a transformer, and gives the model both forms', async () => {
    const registry = new MiddlewareRegistry();
    registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: [...context.systemPrompt, { text: 'Be brief.' }] }));
    const model = new ScriptedModel([textTurn('Hi.')]);
    await new Agent({ systemPrompt: [{ text: 'You are helpful.' }, { cachePoint: { type: 'default' } }], model, registry }).invoke('Hi');
    expect([model.calls[0]?.request.systemPrompt, model.calls[0]?.request.systemBlocks]).toEqual([
      'You are helpful.\nBe brief.',
      [{ text: 'You are helpful.' }, { cachePoint: { type: 'default' } }, { text: 'Be brief.' }],
    ]);
  });

  it('runs no tool when an Output handler turns a tool-use answer into the end of the turn', async () => {
    const registry = new MiddlewareRegistry();
    registry.add(InvokeModelStage.Output, (result) =>
      result.update((draft) => {
        draft.stopReason = 'endTurn';
      }),
    );
    const search = new ScriptedTool({ name: 'search' });
    const result = await new Agent({
      model: new ScriptedModel([toolUseTurn([{ name: 'search', input: {} }])]),
      tools: [search],
      registry,
    }).invoke('Find it.');
    expect([result.stopReason, search.calls.length]).toEqual(['endTurn', 0]);
  });

  it('fails with ERR_NO_RESULT, naming the stage, when a Wrap handler yields no result', async () => {
    const registry = new MiddlewareRegistry();
    // The mistake the review reproduced: a Wrap handler that never yields.
    registry.add(InvokeModelStage.Wrap, async function* silent() {});
    const error = await new Agent({ model: new ScriptedModel([textTurn('Hi.')]), registry }).invoke('test').then(
      () => undefined,
      (thrown: unknown) => thrown as MiddlewareError,
    );
    expect([MiddlewareError.isInstance(error), error?.code, error?.stage]).toEqual([true, 'ERR_NO_RESULT', 'invokeModel']);
  });

  it('fails with ERR_OUTPUT_CONTRACT, naming the handler, when an Output handler returns no MiddlewareResult', async () => {
    const registry = new MiddlewareRegistry();
    // @ts-expect-error: the mistake the review found, an Output handler that forgets to return
    registry.add(ExecuteToolStage.Output, function forgetful() {});
    const agent = new Agent({
      model: new ScriptedModel([toolUseTurn([{ name: 'search', input: {} }])]),
      tools: [new ScriptedTool({ name: 'search' })],
      registry,
    });
    const error = await agent.invoke('test').then(
      () => undefined,
      (thrown: unknown) => thrown as MiddlewareError,
    );
    expect([error?.code, error?.stage, error?.phase, error?.handler]).toEqual([
      'ERR_OUTPUT_CONTRACT',
      'executeTool',
      'output',
      'forgetful',
    ]);
  });
});
