/**
 * One model call of the reference agent's loop: an InvokeModelStage invoke
 * whose state binding is the terminal call's own model state.
 */
import { modelTerminal } from './model-terminal';
import type { AgentCore } from './agent-core';
import { createModelContext } from './history';
import type { Attempt } from './run-state';
import type { RunScope } from './run-scope';
import type { AgentEvent, ModelResultEvent } from './stage-types';
import { InvokeModelStage } from './stages';
import { kept } from './kept';

/**
 * One InvokeModelStage invoke; its (Output-transformed) result is what the
 * loop goes on with. The model's draft starts from the attempt's own model
 * state, and only a successful chain writes it back there.
 */
export async function* callModel(
  core: AgentCore,
  scope: RunScope,
  attempt: Attempt,
  invocationState: Record<string, unknown>,
  signal: AbortSignal,
): AsyncGenerator<AgentEvent, ModelResultEvent, undefined> {
  const before = attempt.modelState;
  const assigned = core.modelState;
  let written: Record<string, unknown> | undefined;
  const context = createModelContext({
    model: core.model,
    messages: attempt.history.messages,
    systemPrompt: core.systemPrompt,
    toolSpecs: scope.toolSpecs,
    toolChoice: core.toolChoice,
    invocationState,
    agent: scope.view,
    modelState: before,
  });
  let last: AgentEvent | undefined;
  try {
    const events = scope.registry.invoke(InvokeModelStage, context, modelTerminal, {
      signal,
      // The snapshot is the attempt's own state, so a handler's change to agent.modelState never reaches the model.
      state: { get: () => before, set: (next) => void (written = next) },
    });
    for await (const event of events) {
      last = kept(event);
      yield event;
    }
  } finally {
    attempt.modelState = written ?? before;
    // Whatever a handler assigned to agent.modelState during the invoke is dropped with it.
    core.modelState = assigned;
  }
  return last as ModelResultEvent;
}
