import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { Agent, History, type Message } from '../../src/agent/index';
import { isCheckedArray } from '../../src/agent/values/checked-messages';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { assistant, user } from './fixtures';

/** What building an agent from `messages` does: the error's code and message, or 'built'. */
function build(messages: readonly Message[]): string | readonly [unknown, string] {
  try {
    new Agent({ model: new ScriptedModel([]), messages });
    return 'built';
  } catch (error) {
    return [MiddlewareError.isInstance(error) ? error.code : error, (error as Error).message];
  }
}

const NOT_A_STRING = /options\.messages\[1\]\.content\[0\]\.text of a text block must be a string, got number 7/;

describe('new Agent({ messages })', () => {
  describe('messages the package checked (MW-144)', () => {
    it("takes an earlier agent's messages, and the arrays its runs make, as checked", async () => {
      const earlier = new Agent({ model: new ScriptedModel([textTurn('fine')]), messages: [user('a'), assistant('b')] });
      const start = earlier.messages;
      await earlier.invoke('c');
      const later = new Agent({ model: new ScriptedModel([]), messages: earlier.messages });
      expect([isCheckedArray(start), isCheckedArray(earlier.messages), later.messages === earlier.messages]).toEqual([true, true, true]);
    });

    it('keeps a history checked while the messages appended to it pass the checks, and not once one does not', () => {
      const history = new History([user('a')]);
      const unchecked = isCheckedArray(history.messages);
      new Agent({ model: new ScriptedModel([]), messages: history.messages });
      const checked = isCheckedArray(history.messages);
      history.append(assistant('b'));
      const appended = isCheckedArray(history.messages);
      history.append({ role: 'user', content: [{ type: 'text', text: 7 }] } as never);
      expect([unchecked, checked, appended, isCheckedArray(history.messages)]).toEqual([false, true, true, false]);
      const outcome = build(history.messages);
      expect(outcome[0]).toBe('ERR_INVALID_OPTIONS');
      expect(outcome[1]).toMatch(/options\.messages\[2\]\.content\[0\]\.text of a text block must be a string, got number 7/);
    });

    it('decides each array of a history read between appends when it is first asked about, whatever the order', () => {
      const history = new History([user('a')]);
      new Agent({ model: new ScriptedModel([]), messages: history.messages });
      history.append(assistant('b'));
      const first = history.messages;
      history.append({ role: 'user', content: [{ type: 'text', text: 7 }] } as never);
      const second = history.messages;
      history.append(assistant('c'));
      const third = history.messages;
      expect([isCheckedArray(third), isCheckedArray(second), isCheckedArray(first), isCheckedArray(third)]).toEqual([
        false,
        false,
        true,
        false,
      ]);
    });

    it('takes the snapshot an agent wrote as checked, and checks one changed after it was written', async () => {
      const earlier = new Agent({ model: new ScriptedModel([textTurn('fine')]) });
      await earlier.invoke('hi');
      const snapshot = earlier.snapshot();
      const stored = JSON.parse(JSON.stringify(snapshot)) as { messages: { content: { text: unknown }[] }[] };
      (stored.messages[1] as { content: { text: unknown }[] }).content[0] = { type: 'text', text: 7 } as never;
      const outcome = (() => {
        try {
          return new Agent({ model: new ScriptedModel([]), snapshot: stored as never });
        } catch (error) {
          return error as Error;
        }
      })();
      expect([isCheckedArray(snapshot.messages), (outcome as Error).message]).toEqual([
        true,
        expect.stringMatching(/options\.snapshot\.messages\[1\]\.content\[0\]\.text of a text block must be a string, got number 7/),
      ]);
    });
  });

  describe('messages from outside, frozen or not', () => {
    it('checks an array the caller froze', () => {
      const messages = Object.freeze([
        user('a'),
        Object.freeze({ role: 'assistant', content: Object.freeze([{ type: 'text', text: 7 }]) }),
      ]);
      expect(build(messages as never)).toEqual(['ERR_INVALID_OPTIONS', expect.stringMatching(NOT_A_STRING)]);
    });

    it('checks again a frozen message whose content array is not frozen, which may have changed', () => {
      const content: unknown[] = [{ type: 'text', text: 'fine' }];
      const messages = Object.freeze([user('a'), Object.freeze({ role: 'assistant', content })]) as unknown as Message[];
      const first = build(messages);
      content[0] = { type: 'text', text: 7 };
      expect([first, build(messages)]).toEqual(['built', ['ERR_INVALID_OPTIONS', expect.stringMatching(NOT_A_STRING)]]);
    });

    it('checks again a frozen block that reads a field through a getter, which may answer differently', () => {
      let reads = 0;
      const block = Object.freeze({
        type: 'text',
        get text(): unknown {
          reads += 1;
          return reads === 1 ? 'fine' : 7;
        },
      });
      const messages = Object.freeze([
        user('a'),
        Object.freeze({ role: 'assistant', content: Object.freeze([block]) }),
      ]) as unknown as Message[];
      const first = build(messages);
      expect([first, build(messages)]).toEqual(['built', ['ERR_INVALID_OPTIONS', expect.stringMatching(NOT_A_STRING)]]);
    });

    describe('a tool result whose parts are not all fixed', () => {
      const BAD_TEXT = { type: 'text', text: 7 };
      const RESULT_TEXT = /options\.messages\[2\]\.content\[0\]\.content\[0\]\.text of a text block must be a string, got number 7/;
      const RESULT_TYPE = /options\.messages\[2\]\.content\[0\]\.type must be a string, got number 7/;

      /** A conversation ending with a tool result built by `result`, everything else frozen. */
      function withResult(result: object): Message[] {
        const toolUse = Object.freeze({ type: 'toolUse', toolUseId: 't1', name: 'lookup', input: Object.freeze({}) });
        return Object.freeze([
          user('a'),
          Object.freeze({ role: 'assistant', content: Object.freeze([toolUse]) }),
          Object.freeze({ role: 'user', content: Object.freeze([result]) }),
        ]) as unknown as Message[];
      }

      function frozenResult(fields: object): object {
        return Object.freeze({ type: 'toolResult', toolUseId: 't1', name: 'lookup', status: 'success', ...fields });
      }

      it('checks again a tool result whose content array is not frozen', () => {
        const content: unknown[] = [Object.freeze({ type: 'text', text: 'fine' })];
        const messages = withResult(frozenResult({ content }));
        const first = build(messages);
        content[0] = BAD_TEXT;
        expect([first, build(messages)]).toEqual(['built', ['ERR_INVALID_OPTIONS', expect.stringMatching(RESULT_TEXT)]]);
      });

      it('checks again a tool result whose content is read through a getter', () => {
        let reads = 0;
        const result = Object.freeze(
          Object.defineProperties(
            { type: 'toolResult', toolUseId: 't1', name: 'lookup', status: 'success' },
            {
              content: {
                enumerable: true,
                get: () => Object.freeze([Object.freeze((reads += 1) === 1 ? { type: 'text', text: 'fine' } : BAD_TEXT)]),
              },
            },
          ),
        );
        const messages = withResult(result);
        expect([build(messages), build(messages)]).toEqual(['built', ['ERR_INVALID_OPTIONS', expect.stringMatching(RESULT_TEXT)]]);
      });

      it("checks again a tool result whose content's block is not frozen", () => {
        const block: { type: string; text: unknown } = { type: 'text', text: 'fine' };
        const messages = withResult(frozenResult({ content: Object.freeze([block]) }));
        const first = build(messages);
        block.text = 7;
        expect([first, build(messages)]).toEqual(['built', ['ERR_INVALID_OPTIONS', expect.stringMatching(RESULT_TEXT)]]);
      });

      it("checks again a tool result whose content's item is read through a getter", () => {
        let reads = 0;
        const content = Object.freeze(
          Object.defineProperty([], 0, {
            enumerable: true,
            get: () => Object.freeze((reads += 1) === 1 ? { type: 'text', text: 'fine' } : BAD_TEXT),
          }),
        );
        const messages = withResult(frozenResult({ content }));
        expect([build(messages), build(messages)]).toEqual(['built', ['ERR_INVALID_OPTIONS', expect.stringMatching(RESULT_TEXT)]]);
      });

      it('checks again a block whose type is read through a getter', () => {
        let reads = 0;
        const result = Object.freeze(
          Object.defineProperties(
            { toolUseId: 't1', name: 'lookup', status: 'success', content: Object.freeze([]) },
            { type: { enumerable: true, get: () => ((reads += 1) <= 1 ? 'toolResult' : 7) } },
          ),
        );
        const messages = withResult(result);
        expect([build(messages), build(messages)]).toEqual(['built', ['ERR_INVALID_OPTIONS', expect.stringMatching(RESULT_TYPE)]]);
      });
    });

    it('checks an unfrozen array every time, since its messages may have changed', () => {
      const messages: Message[] = [user('a'), assistant('b')];
      const first = build(messages);
      messages[1] = { role: 'assistant', content: [{ type: 'text', text: 7 }] } as never;
      expect([first, build(messages)]).toEqual(['built', ['ERR_INVALID_OPTIONS', expect.stringMatching(NOT_A_STRING)]]);
    });
  });
});

describe('Agent', () => {
  describe('the messages each model call gets (MW-145)', () => {
    it('gives each call a frozen array of the conversation so far, which later appends leave as it was', async () => {
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 't1' }]), textTurn('done')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], messages: [user('earlier'), assistant('reply')] });
      await agent.invoke('go');
      const [first, second] = model.calls.map((call) => call.request.messages);
      expect([Object.isFrozen(first), Object.isFrozen(second), first?.length, second?.length, agent.messages.length]).toEqual([
        true,
        true,
        3,
        5,
        6,
      ]);
      expect([first, second?.slice(0, 3), agent.messages.slice(0, 5)]).toEqual([
        [user('earlier'), assistant('reply'), user('go')],
        first,
        second,
      ]);
    });
  });
});
