import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { Agent, type Message } from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';

describe('Agent', () => {
  describe('messages whose blocks a snapshot would refuse', () => {
    it.each<[string, unknown, string]>([
      [
        'a text block without text',
        [{ role: 'user', content: [{ type: 'text', text: 42 }] }],
        'input[0].content[0].text of a text block must be a string, got number 42',
      ],
      [
        'a tool result of another status',
        [{ role: 'user', content: [{ type: 'toolResult', toolUseId: 't1', status: 'done', content: [] }] }],
        "input[0].content[0].status of a toolResult block must be 'success' or 'error', got the string \"done\"",
      ],
      [
        'a block that is no object',
        { role: 'user', content: ['hi'] },
        'input.content[0] must be a content block { type, ... }, got the string "hi"',
      ],
    ])('refuses %s in a run, before anything runs, and the agent stays usable', async (_name, input, message) => {
      const agent = new Agent({ model: new ScriptedModel([textTurn('fine')]) });
      const outcome = await agent.invoke(input as Message[]).catch((error: unknown) => error);
      expect([MiddlewareError.isInstance(outcome) && outcome.code, (outcome as Error).message.includes(message), agent.messages]).toEqual([
        'ERR_INVALID_OPTIONS',
        true,
        [],
      ]);
      await expect(agent.invoke('hi')).resolves.toMatchObject({ stopReason: 'endTurn' });
    });

    it('refuses them in new Agent({ messages }) naming the option', () => {
      const outcome = (() => {
        try {
          return new Agent({
            model: new ScriptedModel([]),
            messages: [{ role: 'assistant', content: [{ type: 'toolUse', toolUseId: 1, name: 'x', input: {} }] }] as never,
          });
        } catch (error) {
          return error;
        }
      })();
      expect((outcome as Error).message).toContain(
        'options.messages[0].content[0].toolUseId of a toolUse block must be a string, got number 1',
      );
    });

    it('gives a run of checked messages a snapshot that restores', async () => {
      const agent = new Agent({ model: new ScriptedModel([textTurn('fine')]) });
      await agent.invoke([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image', source: 'kept as it is' },
          ],
        },
      ] as never);
      expect(new Agent({ model: new ScriptedModel([]), snapshot: agent.snapshot() }).messages).toEqual(agent.messages);
    });
  });
});
