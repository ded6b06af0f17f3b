/**
 * The adapter's model names itself as the AI SDK model does, so GenAI tracing
 * (MW-190) names the chat spans of an agent on any AI SDK provider.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, genAiSpans } from '../../src/agent/index';
import { fromAiSdk } from '../../src/ai-sdk/index';
import { tracing } from '../../src/middleware/index';
import { mockModel, textParts } from './fixtures';

describe('fromAiSdk', () => {
  describe('the model it makes', () => {
    it("carries the AI SDK model's modelId and provider", () => {
      const model = fromAiSdk(mockModel(textParts(['Hi.'])));
      expect({ modelId: model.modelId, provider: model.provider }).toEqual({ modelId: 'mock-model', provider: 'mock-provider' });
    });
  });

  describe('under GenAI tracing', () => {
    it("names each chat span and its gen_ai.request.model after the AI SDK model's modelId", async () => {
      const exporter = new InMemorySpanExporter();
      const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer, conventions: [genAiSpans] }));
      await new Agent({ model: fromAiSdk(mockModel(textParts(['Hi.']))), registry }).invoke('Hello');
      const chat = exporter.getFinishedSpans().filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
      expect(chat.map((span) => [span.name, span.attributes['gen_ai.request.model']])).toEqual([['chat mock-model', 'mock-model']]);
    });
  });
});
