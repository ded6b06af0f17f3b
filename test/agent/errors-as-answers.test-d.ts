import { describe, expectTypeOf, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import {
  AgentStreamStage,
  ExecuteToolStage,
  InvokeModelStage,
  errorsAsAnswers,
  modelErrorAnswer,
  toolErrorAnswer,
  type ExecuteToolContext,
  type ToolResultEvent,
} from '../../src/agent/index';

describe('errorsAsAnswers', () => {
  it('fits the stage its answer belongs to', () => {
    const registry = new MiddlewareRegistry();
    registry.add(ExecuteToolStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer }));
    registry.add(InvokeModelStage.Wrap, errorsAsAnswers({ toResult: modelErrorAnswer, critical: (error) => error instanceof TypeError }));
    // @ts-expect-error: a tool's answer is no result of the model stage
    registry.add(InvokeModelStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer }));
    // @ts-expect-error: a model's answer is no result of the agent stream
    registry.add(AgentStreamStage.Wrap, errorsAsAnswers({ toResult: modelErrorAnswer }));
  });

  it('gives toResult the stage context', () => {
    const registry = new MiddlewareRegistry();
    registry.add(
      ExecuteToolStage.Wrap,
      errorsAsAnswers({
        toResult: (error, context) => {
          expectTypeOf(context).toEqualTypeOf<ExecuteToolContext>();
          return toolErrorAnswer(error, context);
        },
      }),
    );
    expectTypeOf(toolErrorAnswer).returns.toEqualTypeOf<ToolResultEvent>();
  });
});
