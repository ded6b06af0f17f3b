import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage, type Tool, type ToolResultBlock, type ToolResultEvent } from '../../src/agent/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';

/** Runs one call of a tool whose `run` is `run`; returns the result block that entered the history and the event Output handlers saw. */
async function callTool(run: () => unknown): Promise<{ block: ToolResultBlock; event: ToolResultEvent }> {
  const registry = new MiddlewareRegistry();
  let seen: ToolResultEvent | undefined;
  registry.add(ExecuteToolStage.Output, (result) => {
    seen = result.value;
    return result;
  });
  const tool: Tool = { spec: { name: 't', description: '', inputSchema: {} }, run };
  const agent = new Agent({
    model: new ScriptedModel([toolUseTurn([{ name: 't', input: {}, toolUseId: 'u1' }]), textTurn('ok')]),
    tools: [tool],
    registry,
  });
  const result = await agent.invoke('go');
  expect(result.stopReason).toEqual('endTurn');
  const message = agent.messages[2];
  return { block: message?.content[0] as ToolResultBlock, event: seen as ToolResultEvent };
}

const errorBlock = (text: string): ToolResultBlock => ({
  type: 'toolResult',
  toolUseId: 'u1',
  name: 't',
  status: 'error',
  content: [{ type: 'text', text }],
});
const jsonBlock = (json: unknown): ToolResultBlock => ({
  type: 'toolResult',
  toolUseId: 'u1',
  name: 't',
  status: 'success',
  content: [{ type: 'json', json }],
});
const notJson = (problem: string): ToolResultBlock => errorBlock(`Tool "t" returned a value that is not JSON: ${problem}`);

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { a: 1, inner: { list: [] as unknown[] } };
  (value.inner as { list: unknown[] }).list.push(value.inner);
  return value;
}

function nested(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

/** `inner` inside `levels` arrays: `[[...[inner]...]]`. */
function within(levels: number, inner: unknown): unknown[] {
  let value: unknown[] = [inner];
  for (let level = 1; level < levels; level++) value = [value];
  return value;
}

describe('toolTerminal', () => {
  describe('a value that cannot be carried as JSON', () => {
    it.each<[string, () => unknown, ToolResultBlock]>([
      ['a cyclic object', cyclic, notJson('value.inner.list[0] refers back to value.inner (a cycle)')],
      ['a BigInt inside an object', () => ({ n: 1n }), notJson('value.n is a BigInt')],
      ['a BigInt', () => 5n, notJson('value is a BigInt')],
      ['a symbol', () => Symbol('s'), notJson('value is a symbol')],
      ['a function', () => () => 1, notJson('value is a function')],
      [
        'an object whose getter throws',
        () => ({
          ok: 1,
          get broken(): never {
            throw new Error('no access');
          },
        }),
        notJson('reading value.broken threw: no access'),
      ],
      [
        'an object whose toJSON throws',
        () => ({
          list: [
            {
              toJSON(): never {
                throw new Error('bad toJSON');
              },
            },
          ],
        }),
        notJson('value.list[0].toJSON() threw: bad toJSON'),
      ],
      [
        'a value nested deeper than 1000 levels',
        () => nested(1001),
        notJson(`value${'[0]'.repeat(10)}…${'[0]'.repeat(10)} is nested deeper than 1000 levels`),
      ],
      [
        'a BigInt under keys that are no identifiers and keys that are',
        () => ({ 'my key': { '1st': { $ok: { _x9: 1n } } } }),
        notJson('value["my key"]["1st"].$ok._x9 is a BigInt'),
      ],
      [
        'a BigInt 20 steps deep, named by its whole path',
        () => ({ list: within(19, 1n) }),
        notJson(`value.list${'[0]'.repeat(19)} is a BigInt`),
      ],
      [
        'a BigInt 21 steps deep, named by its first and last 10 steps',
        () => ({ list: within(20, 1n) }),
        notJson(`value.list${'[0]'.repeat(9)}…${'[0]'.repeat(10)} is a BigInt`),
      ],
      [
        'an object whose toJSON getter throws',
        () => ({
          inner: Object.defineProperty({}, 'toJSON', {
            get() {
              throw new Error('no toJSON');
            },
          }),
        }),
        notJson('reading value.inner.toJSON threw: no toJSON'),
      ],
    ])('answers %s with an error result saying why', async (_label, value, expected) => {
      const { block, event } = await callTool(value);
      expect([block, 'error' in event]).toEqual([expected, false]);
    });
  });

  describe('a value that JSON carries', () => {
    it.each<[string, () => unknown, ToolResultBlock]>([
      [
        'an object with a Date, undefined, a function and NaN',
        () => ({ when: new Date(0), skip: undefined, call: () => 1, list: [undefined, () => 1, Number.NaN, 2], shared: [1] }),
        jsonBlock({ when: '1970-01-01T00:00:00.000Z', list: [null, null, null, 2], shared: [1] }),
      ],
      ['undefined', () => undefined, jsonBlock(null)],
      [
        'Number, String and Boolean objects as the primitives they stand for',
        () => ({ n: new Number(3), inf: new Number(Infinity), s: new String('ab'), list: [new Boolean(false), new String('x')] }),
        jsonBlock({ n: 3, inf: null, s: 'ab', list: [false, 'x'] }),
      ],
      [
        'what toJSON returns, called with the key or index',
        () => {
          const named = { toJSON: (key: string) => `key ${JSON.stringify(key)}` };
          return { inObject: named, inArray: [named] };
        },
        jsonBlock({ inObject: 'key "inObject"', inArray: ['key "0"'] }),
      ],
      ['a number', () => 42, jsonBlock(42)],
      [
        'a string',
        () => 'plain text',
        { type: 'toolResult', toolUseId: 'u1', name: 't', status: 'success', content: [{ type: 'text', text: 'plain text' }] },
      ],
      [
        'an object shared twice',
        () => {
          const shared = { n: 1 };
          return { a: shared, b: shared };
        },
        jsonBlock({ a: { n: 1 }, b: { n: 1 } }),
      ],
      [
        'an array sharing its parts over 12 levels',
        () => {
          let shared: unknown[] = [1];
          for (let level = 0; level < 12; level++) shared = [shared, shared];
          return shared;
        },
        jsonBlock(
          (() => {
            let expected: unknown = [1];
            for (let level = 0; level < 12; level++) expected = [expected, expected];
            return expected;
          })(),
        ),
      ],
    ])('sends %s as JSON does', async (_label, value, expected) => {
      expect((await callTool(value)).block).toEqual(expected);
    });

    it('calls the toJSON of the whole value with the key ""', async () => {
      expect((await callTool(() => ({ toJSON: (key: unknown) => [key] }))).block).toEqual(jsonBlock(['']));
    });

    it('sends a BigInt as what BigInt.prototype.toJSON returns, where an application defines one', async () => {
      const prototype = BigInt.prototype as { toJSON?: () => string };
      prototype.toJSON = function toJSON(this: bigint) {
        return `${this.toString()}n`;
      };
      try {
        expect((await callTool(() => ({ id: 12n }))).block).toEqual(jsonBlock({ id: '12n' }));
      } finally {
        delete prototype.toJSON;
      }
    });
  });

  describe('a tool that throws', () => {
    const messageGetterThrows = new Error('hidden');
    Object.defineProperty(messageGetterThrows, 'message', {
      get() {
        throw new Error('no message');
      },
    });

    it.each<[string, unknown, string]>([
      ['an object without a prototype', Object.create(null) as unknown, 'Tool "t" failed: (no readable message)'],
      ['an Error whose message getter throws', messageGetterThrows, 'Tool "t" failed: (no readable message)'],
      ['a string', 'boom', 'Tool "t" failed: boom'],
      ['a number', 42, 'Tool "t" failed: 42'],
      ['undefined', undefined, 'Tool "t" failed: undefined'],
      ['a plain object with a message', { message: 'plain' }, 'Tool "t" failed: plain'],
      ['a function with a message', Object.assign(() => undefined, { message: 'from a function' }), 'Tool "t" failed: from a function'],
      ['an Error', new Error('disk full'), 'Tool "t" failed: disk full'],
      [
        'a Proxy whose every read throws',
        new Proxy(
          {},
          {
            get() {
              throw new Error('no');
            },
          },
        ),
        'Tool "t" failed: (no readable message)',
      ],
    ])('answers a tool throwing %s with an error result, keeping the very value on error', async (_label, thrown, text) => {
      const { block, event } = await callTool(() => {
        throw thrown;
      });
      expect([block, 'error' in event, event.error === thrown]).toEqual([errorBlock(text), true, true]);
    });

    it('shows a thrown number as String() does, not as a message its prototype has', async () => {
      Object.defineProperty(Number.prototype, 'message', { value: 'inherited', configurable: true });
      try {
        const { block } = await callTool(() => {
          throw 42;
        });
        expect(block).toEqual(errorBlock('Tool "t" failed: 42'));
      } finally {
        delete (Number.prototype as { message?: unknown }).message;
      }
    });

    it('answers a rejected promise like a throw', async () => {
      const thrown = Object.create(null) as unknown;
      const { block, event } = await callTool(() => Promise.reject(thrown));
      expect([block, event.error === thrown]).toEqual([errorBlock('Tool "t" failed: (no readable message)'), true]);
    });
  });
});
