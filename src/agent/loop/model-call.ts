/**
 * One model call of the reference agent's loop: an InvokeModelStage invoke
 * whose state binding is the terminal call's own model state. The turn loop
 * hands the invoke's events to its relay, so no generator of the agent's
 * sits between the two invokes on a model event.
 */
import type { AgentState } from '../setup/agent-state';
import { createModelContext } from '../session/history';
import { modelTerminal } from '../model/model-terminal';
import type { Attempt } from '../setup/run-state';
import type { RunScope } from '../setup/run-scope';
import type { InvokeModelEvent, MiddlewareModelCaller } from '../types/stages';
import { InvokeModelStage } from '../stages';

/**
 * One InvokeModelStage invoke; its (Output-transformed) result is what the
 * loop goes on with (the turn loop keeps a frozen copy of it). The model's draft starts from the attempt's own model
 * state, and only a successful chain writes it back there.
 */
export class ModelCall {
  private readonly before: Record<string, unknown>;
  private readonly assigned: Record<string, unknown>;
  private written: Record<string, unknown> | undefined;

  /** Reads the states the call starts from; nothing runs until {@link ModelCall.events}. */
  constructor(
    private readonly agent: AgentState,
    private readonly scope: RunScope,
    private readonly attempt: Attempt,
    private readonly invocationState: Record<string, unknown>,
    private readonly signal: AbortSignal,
    private readonly invokeModel: MiddlewareModelCaller,
  ) {
    this.before = attempt.modelState;
    this.assigned = agent.modelState;
  }

  /** The invoke's events; drain them, then call {@link ModelCall.end} whatever happened. */
  events(): AsyncGenerator<InvokeModelEvent, void, undefined> {
    const { agent, scope, before } = this;
    const context = createModelContext({
      model: agent.model,
      messages: this.attempt.history.messages,
      systemPrompt: agent.systemPrompt,
      toolSpecs: scope.toolSpecs,
      toolChoice: agent.toolChoice,
      invocationState: this.invocationState,
      agent: scope.view,
      modelState: before,
      invokeModel: this.invokeModel,
    });
    return scope.registry.invoke(InvokeModelStage, context, modelTerminal, {
      signal: this.signal,
      // The snapshot is the attempt's own state, so a handler's change to agent.modelState never reaches the model.
      state: { get: () => before, set: (next) => void (this.written = next) },
    });
  }

  /** Writes the model state back: the chain's when it succeeded, else the one it started from. */
  end(): void {
    this.attempt.modelState = this.written ?? this.before;
    // Whatever a handler assigned to agent.modelState during the invoke is dropped with it.
    this.agent.modelState = this.assigned;
  }
}
