import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { weatherStream } from '../../examples/ai-sdk-stream-text';
import { finishPart, mockModel, textParts } from './fixtures';

describe('weatherStream (examples/ai-sdk-stream-text.ts, shown in the README)', () => {
  describe('on a model whose answer fails mid-stream once, after a tool call', () => {
    it('runs the tool, retries the answer and streams its text once', async () => {
      const failing: LanguageModelV3StreamPart[] = [
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Sun' },
        { type: 'error', error: Object.assign(new Error('overloaded'), { statusCode: 503, isRetryable: true }) },
      ];
      const model = mockModel(
        [{ type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: '{"city":"Lyon"}' }, finishPart('tool-calls')],
        failing,
        textParts(['Sunny ', 'in Lyon.']),
      );
      const result = weatherStream(model, 'Lyon');
      const chunks: string[] = [];
      for await (const chunk of result.textStream) chunks.push(chunk);
      const steps = await result.steps;
      expect([chunks, steps.map((step) => step.toolResults.map((toolResult) => toolResult.output)), model.doStreamCalls.length]).toEqual([
        ['Sunny ', 'in Lyon.'],
        [['Sunny in Lyon'], []],
        3,
      ]);
    });
  });
});
