import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type SystemContentBlock } from '../../src/core/index';
import { Agent, InvokeModelStage } from '../../src/agent/index';
import { fromAiSdk } from '../../src/ai-sdk/index';
import { mockModel, textParts } from './fixtures';

describe('fromAiSdk', () => {
  describe('in an agent whose handler puts a string system prompt in the model context', () => {
    it('is never called: the run rejects with ERR_INVALID_OPTIONS before any request reaches the provider', async () => {
      const languageModel = mockModel(textParts(['never']));
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: 'Be terse.' as unknown as SystemContentBlock[] }));
      const agent = new Agent({ model: fromAiSdk(languageModel), registry });
      const thrown: unknown = await agent.invoke('go').catch((error: unknown) => error);
      expect([
        MiddlewareError.isInstance(thrown),
        (thrown as MiddlewareError).code,
        (thrown as MiddlewareError).stage,
        (thrown as MiddlewareError).phase,
        languageModel.doStreamCalls.length,
      ]).toEqual([true, 'ERR_INVALID_OPTIONS', 'invokeModel', 'terminal', 0]);
    });
  });
});
