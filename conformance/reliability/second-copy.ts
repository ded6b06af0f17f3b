/**
 * The `second-copy` reliability scenario (MW-200, MW-201): two copies of the
 * library in one realm, as the ESM and CommonJS builds or two installed
 * copies are. Handlers are registered through one copy's standard stages and
 * registry; an agent of the other copy runs with that registry.
 *
 * Why the copies are parameters and this file imports nothing at run time:
 * the host loads the copies its own way (two fresh module instances under
 * vitest, the ESM and CommonJS builds under the command line), and the
 * packed-package tier (`test/package/`) runs this very file, converted to
 * plain JavaScript, against the installed builds loaded in one process.
 */
import type { Json } from '../cases/case-base';
import type { AgentEntry, CoreEntry, TestingEntry } from './library-entries';

/** One loaded copy of the library: its main entry point, its agent kit and its test kit. */
export interface LibraryCopy {
  /** The copy's `staged-middleware`. */
  readonly core: CoreEntry;
  /** The copy's `staged-middleware/agent`. */
  readonly agent: AgentEntry;
  /** The copy's `staged-middleware/testing`. */
  readonly testing: TestingEntry;
}

/** Runs the scenario: `registerThrough` and `agentFrom` name one of `copies`, the one loaded first or the other. */
export async function secondCopy(
  testCase: Readonly<Record<string, unknown>>,
  copies: { readonly first: LibraryCopy; readonly second: LibraryCopy },
): Promise<Json> {
  const { core, agent: kit } = copies[testCase.registerThrough as 'first' | 'second'];
  const runner = copies[testCase.agentFrom as 'first' | 'second'];
  const trace: string[] = [];
  const registry = new core.MiddlewareRegistry();
  registry.add(kit.InvokeModelStage.Input, function redact(context) {
    trace.push('input');
    return context;
  });
  registry.add(kit.ExecuteToolStage.Wrap, async function* guard(context) {
    trace.push(`guard ${context.toolUse.name}`);
    const content = [{ type: 'text' as const, text: 'Blocked.' }];
    yield {
      type: 'toolResult',
      toolResult: { type: 'toolResult', toolUseId: context.toolUse.toolUseId, name: context.toolUse.name, status: 'error', content },
    };
  });
  registry.add(kit.AgentStreamStage.Output, function audit(result) {
    trace.push(`output ${result.value.stopReason}`);
    return result;
  });
  const tool = new runner.testing.ScriptedTool({ name: 'deleteFiles' });
  const model = new runner.testing.ScriptedModel([
    runner.testing.toolUseTurn([{ name: 'deleteFiles', input: {} }]),
    runner.testing.textTurn('done'),
  ]);
  const agent = new runner.agent.Agent({ model, tools: [tool], registry });
  const outcome = await agent.invoke('Clean up.');
  const probe = core.createStage('probe');
  return {
    sameStages: (['InvokeModelStage', 'ExecuteToolStage', 'AgentStreamStage'] as const).every(
      (name) => copies.first.agent[name] === copies.second.agent[name],
    ),
    trace,
    toolCalls: tool.calls.length,
    stopReason: outcome.stopReason,
    recognised: {
      stage: runner.core.isStage(probe),
      phaseToken: runner.core.isPhaseToken(probe.Wrap),
      error: runner.core.MiddlewareError.isInstance(new core.MiddlewareError({ code: 'ERR_ABORTED', message: 'probe' })),
      result: runner.core.MiddlewareResult.isInstance(new core.MiddlewareResult(1)),
      interrupt: runner.agent.InterruptSignal.isInstance(new kit.InterruptSignal({ id: 'probe', name: 'probe', reason: undefined })),
    },
  };
}
