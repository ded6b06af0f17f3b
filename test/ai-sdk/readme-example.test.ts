import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { weatherAgent } from '../../examples/ai-sdk';
import { mockModel, textParts, usage } from './fixtures';

describe('weatherAgent (examples/ai-sdk.ts, shown in the README)', () => {
  describe('on an AI SDK model that calls the weather tool, then answers', () => {
    it('runs the zod-defined tool with its validated input and sends the model its result by tool name', async () => {
      const model: MockLanguageModelV3 = mockModel(
        [
          { type: 'tool-input-start', id: 'w1', toolName: 'weather' },
          { type: 'tool-input-delta', id: 'w1', delta: '{"city":"Lyon"}' },
          { type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: '{"city":"Lyon"}' },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(5, 5) },
        ],
        textParts(['Sunny.']),
      );
      const result = await weatherAgent(model).invoke('Weather in Lyon?');
      expect([result.stopReason, result.message?.content]).toEqual(['endTurn', [{ type: 'text', text: 'Sunny.' }]]);
      expect([model.doStreamCalls[0]?.temperature, model.doStreamCalls[1]?.prompt.at(-1)]).toEqual([
        0,
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'w1', toolName: 'weather', output: { type: 'text', value: 'Sunny in Lyon' } }],
        },
      ]);
    });
  });
});
