import { describe, expect, it } from 'vitest';
import { History, createModelContext } from '../../src/agent/index';
import { frozenCopy } from '../../src/agent/values/freeze';
import { ScriptedModel } from '../../src/testing/index';
import { user } from './fixtures';

describe('frozenCopy', () => {
  describe('plain data', () => {
    it('returns a deeply frozen copy and leaves the original unfrozen', () => {
      const original = { list: [{ a: 1 }], nested: { b: 'x' } };
      const copy = frozenCopy(original);
      expect(copy).toEqual(original);
      expect([
        copy === original,
        Object.isFrozen(copy),
        Object.isFrozen(copy.list),
        Object.isFrozen(copy.list[0]),
        Object.isFrozen(copy.nested),
      ]).toEqual([false, true, true, true, true]);
      expect([Object.isFrozen(original), Object.isFrozen(original.list)]).toEqual([false, false]);
    });

    it('keeps objects without a prototype prototype-free', () => {
      const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
      const copy = frozenCopy(bare);
      expect([Object.getPrototypeOf(copy), copy.a, Object.isFrozen(copy)]).toEqual([null, 1, true]);
    });
  });

  describe('values taken as they are', () => {
    class Instance {
      value = 1;
    }
    it.each([
      ['a frozen object', Object.freeze({ a: { b: 1 } })],
      ['a class instance', new Instance()],
      ['a function', () => 1],
    ])('returns %s itself', (_label, value) => {
      expect(frozenCopy(value)).toBe(value);
    });

    it.each([[1], ['text'], [null], [undefined], [true]])('returns the primitive %j', (value) => {
      expect(frozenCopy(value)).toEqual(value);
    });

    it('does not freeze a class instance inside plain data', () => {
      const model = new ScriptedModel([]);
      const copy = frozenCopy({ model });
      expect([copy.model === model, Object.isFrozen(model)]).toEqual([true, false]);
    });
  });
});

describe('History', () => {
  describe('constructor', () => {
    it("takes another history's frozen array as it is, so starting from it copies nothing", () => {
      const earlier = new History([user('a')]);
      expect(new History(earlier.messages).messages).toBe(earlier.messages);
    });

    it("copies and freezes an unfrozen array, leaving the caller's array and messages unfrozen", () => {
      const messages = [user('a')];
      const history = new History(messages);
      expect([
        history.messages === messages,
        Object.isFrozen(history.messages),
        Object.isFrozen(history.messages[0]),
        Object.isFrozen(messages),
        Object.isFrozen(messages[0]),
      ]).toEqual([false, true, true, false, false]);
    });
  });

  describe('append', () => {
    it('replaces the frozen array and freezes each message once', () => {
      const history = new History([user('a')]);
      const before = history.messages;
      const incoming = user('b');
      history.append(incoming);
      expect(history.messages).toEqual([user('a'), user('b')]);
      expect([Object.isFrozen(history.messages), Object.isFrozen(history.messages[1]), Object.isFrozen(incoming)]).toEqual([
        true,
        true,
        false,
      ]);
      expect(before).toEqual([user('a')]);
      expect(history.messages[0]).toBe(before[0]);
    });

    it('makes one frozen array for the appends between two reads, and leaves every array read before as it was (MW-145)', () => {
      const history = new History([user('a')]);
      const before = history.messages;
      history.append(user('b'));
      history.append(user('c'), user('d'));
      const after = history.messages;
      expect([after === history.messages, Object.isFrozen(after), before, after]).toEqual([
        true,
        true,
        [user('a')],
        [user('a'), user('b'), user('c'), user('d')],
      ]);
    });

    it('leaves the history as it was when a message cannot be copied, even with appends waiting', () => {
      const history = new History([user('a')]);
      history.append(user('b'));
      const cyclic: Record<string, unknown> = { role: 'user', content: [] };
      cyclic.self = cyclic;
      expect(() => {
        history.append(user('c'), cyclic as never);
      }).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' }));
      expect(history.messages).toEqual([user('a'), user('b')]);
    });

    it('drops the appends waiting when the history is replaced or restored', () => {
      const history = new History([user('a')]);
      const before = history.messages;
      history.append(user('b'));
      history.restore(before);
      const restored = history.messages;
      history.append(user('c'));
      history.replace([user('z')]);
      expect([restored, history.messages]).toEqual([[user('a')], [user('z')]]);
    });

    it('keeps the same array when nothing is appended', () => {
      const history = new History();
      const before = history.messages;
      history.append();
      expect(history.messages).toBe(before);
    });
  });

  describe('restore', () => {
    it('puts back an earlier array', () => {
      const history = new History([user('a')]);
      const before = history.messages;
      history.append(user('b'));
      history.restore(before);
      expect(history.messages).toBe(before);
    });
  });

  describe('given messages that are not an array', () => {
    it('throws ERR_INVALID_OPTIONS', () => {
      expect(() => new History('hi' as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          stage: 'invokeModel',
          message: expect.stringContaining('new History(messages): messages must be an array'),
        }),
      );
    });
  });
});

describe('createModelContext', () => {
  const model = new ScriptedModel([]);

  describe('sharing', () => {
    it('shares the history array and the invocation state, freezing only the top object', () => {
      const history = new History([user('a')]);
      const invocationState = { n: 1 };
      const context = createModelContext({ model, messages: history.messages, systemPrompt: 'sys', toolSpecs: [], invocationState });
      expect(context).toEqual({ model, messages: [user('a')], systemPrompt: [{ text: 'sys' }], toolSpecs: [], invocationState });
      expect([context.messages === history.messages, context.invocationState === invocationState, context.model === model]).toEqual([
        true,
        true,
        true,
      ]);
      expect([Object.isFrozen(context), Object.isFrozen(invocationState), Object.isFrozen(model)]).toEqual([true, false, false]);
    });

    it('copies and freezes an unfrozen message array it is given', () => {
      const messages = [user('a')];
      const context = createModelContext({
        model,
        messages,
        systemPrompt: undefined,
        toolSpecs: [],
        toolChoice: { type: 'any' },
        invocationState: {},
      });
      expect([context.messages === messages, Object.isFrozen(context.messages), Object.isFrozen(messages)]).toEqual([false, true, false]);
      expect([context.systemPrompt, context.toolChoice]).toEqual([[], { type: 'any' }]);
    });
  });

  describe('cost', () => {
    it('copies nothing of a 10,000-message history, so its cost does not grow with the history (the benchmark measures it: context_scaling)', () => {
      const history = new History(Array.from({ length: 10_000 }, (_, index) => user(`m${index}`)));
      const context = createModelContext({ model, messages: history.messages, systemPrompt: 'sys', toolSpecs: [], invocationState: {} });
      expect([context.messages === history.messages, context.messages[9_999] === history.messages[9_999]]).toEqual([true, true]);
    });
  });

  describe('given parts of the wrong shape', () => {
    it.each<[string, unknown]>([
      ['no parts', null],
      [
        'messages that are not an array',
        { model: new ScriptedModel([]), messages: 'hi', systemPrompt: undefined, toolSpecs: [], invocationState: {} },
      ],
      [
        'tool specs that are not an array',
        { model: new ScriptedModel([]), messages: [], systemPrompt: undefined, toolSpecs: {}, invocationState: {} },
      ],
    ])('throws ERR_INVALID_OPTIONS for %s', (_label, parts) => {
      expect(() => createModelContext(parts as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          stage: 'invokeModel',
          message: expect.stringContaining('createModelContext(parts): parts must be'),
        }),
      );
    });
  });
});
