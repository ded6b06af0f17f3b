/**
 * The message assembly keeps the pieces of a block's deltas apart and joins
 * them once (a flat string, cheap for the garbage collector); these tests
 * pin that what it builds is what adding each piece with `+=` builds (the
 * plain way, written out below as the oracle), including for pieces outside
 * the types: numbers, `null`, `undefined`, objects that convert, and values
 * whose conversion throws, which must throw at the same delta.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MiddlewareError } from '../../src/core/index';
import type { ModelStreamEvent } from '../../src/agent/index';
import { MessageAssembly } from '../../src/agent/model/message-assembly';

/** A block of the oracle, built with `+=`. */
type OracleBlock = { kind: 'text' | 'reasoning'; text: unknown } | { kind: 'toolUse'; toolUseId: string; name: string; json: string };

/** The assembly written the plain way: every delta added to its block with `+=`. */
class OracleAssembly {
  private readonly blocks: OracleBlock[] = [];
  private readonly toolUses: Extract<OracleBlock, { kind: 'toolUse' }>[] = [];
  private readonly byId = new Map<string, Extract<OracleBlock, { kind: 'toolUse' }>>();
  private stopReason: unknown = 'endTurn';

  add(event: Record<string, unknown>): void {
    const last = this.blocks[this.blocks.length - 1];
    if (event.type === 'textDelta' || event.type === 'reasoningDelta') {
      const kind = event.type === 'textDelta' ? 'text' : 'reasoning';
      if (last?.kind === kind) (last as { text: unknown }).text = ((last as { text: unknown }).text as string) + (event.text as string);
      else this.blocks.push({ kind, text: event.text });
    } else if (event.type === 'toolUseStart') {
      const toolUse = { kind: 'toolUse' as const, toolUseId: event.toolUseId as string, name: event.name as string, json: '' };
      this.blocks.push(toolUse);
      this.toolUses.push(toolUse);
      this.byId.set(toolUse.toolUseId, toolUse);
    } else if (event.type === 'toolUseDelta') {
      const target =
        typeof event.toolUseId === 'string'
          ? this.byId.get(event.toolUseId)
          : Number.isInteger(event.index)
            ? this.toolUses[event.index as number]
            : last?.kind === 'toolUse'
              ? last
              : undefined;
      if (target !== undefined) target.json += event.input as string;
    } else if (event.type === 'messageStop') {
      this.stopReason = event.stopReason;
    }
  }

  content(): unknown[] {
    return this.blocks.map((block) => {
      if (block.kind !== 'toolUse') return { type: block.kind, text: block.text };
      let input: unknown = {};
      if (block.json.trim().length > 0) {
        try {
          input = JSON.parse(block.json);
        } catch {
          input = block.json;
        }
      }
      return { type: 'toolUse', toolUseId: block.toolUseId, name: block.name, input };
    });
  }

  stop(): unknown {
    return this.stopReason;
  }
}

/** Converts to 7 wherever `+` converts it. */
const converts = Object.freeze({ valueOf: () => 7 });
/** Cannot be converted: `+` throws. */
const refuses = Object.freeze({
  valueOf(): never {
    throw new Error('this piece has no primitive value');
  },
});

/** A delta's piece: mostly strings (the types), sometimes anything a JavaScript model could send. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('', 'a', 'b c', '{"id":', '"A-1"}', ' ') },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(3, null, undefined, converts, refuses, Symbol.for('piece')) },
);

const ids = fc.constantFrom('call-0', 'call-1', 'call-9');

const event = fc.oneof(
  fc.record({ type: fc.constant('textDelta'), text: piece }),
  fc.record({ type: fc.constant('reasoningDelta'), text: piece }),
  fc.record({ type: fc.constant('toolUseStart'), toolUseId: ids, name: fc.constantFrom('lookup', 'stock') }),
  fc.record({ type: fc.constant('toolUseDelta'), input: piece, toolUseId: ids }),
  fc.record({ type: fc.constant('toolUseDelta'), input: piece, index: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ type: fc.constant('toolUseDelta'), input: piece, index: fc.constantFrom(-1, 0.5, Number.NaN) }),
  fc.record({ type: fc.constant('toolUseDelta'), input: piece }),
  fc.record({ type: fc.constant('messageStop'), stopReason: fc.constantFrom('endTurn', 'toolUse') }),
  fc.constant({ type: 'messageStart', role: 'assistant' }),
);

/** What one add did: nothing visible, or the message of what it threw. */
function outcome(add: () => void): string {
  try {
    add();
    return 'added';
  } catch (error) {
    return `threw ${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

describe('MessageAssembly', () => {
  it('builds what adding every piece with += builds, and throws at the same delta', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 24 }), (events) => {
        const ours = new MessageAssembly();
        const oracle = new OracleAssembly();
        for (const next of events) {
          const expected = outcome(() => {
            oracle.add(next);
          });
          expect(
            outcome(() => {
              ours.add(next as ModelStreamEvent);
            }),
          ).toBe(expected);
        }
        const result = ours.result();
        expect(result.message.content).toEqual(oracle.content());
        expect(result.stopReason).toBe(oracle.stop());
      }),
      { numRuns: 2000 },
    );
  });

  describe('a tool-use delta whose index is not an integer', () => {
    it.each([0.5, Number.NaN, Infinity])('extends the last block, as a delta naming no tool use does (index %s)', (index) => {
      const assembly = new MessageAssembly();
      assembly.add({ type: 'toolUseStart', toolUseId: 'a', name: 'weather' });
      assembly.add({ type: 'toolUseStart', toolUseId: 'b', name: 'clock' });
      assembly.add({ type: 'toolUseDelta', index, input: '{"zone":"CET"}' });
      expect(assembly.result().message.content).toEqual([
        { type: 'toolUse', toolUseId: 'a', name: 'weather', input: {} },
        { type: 'toolUse', toolUseId: 'b', name: 'clock', input: { zone: 'CET' } },
      ]);
    });
  });

  describe('a usage whose reading throws (a JavaScript model outside the types)', () => {
    it('throws ERR_INVALID_OPTIONS from result(), naming the part from modelResult', () => {
      const thrown = new Error('meter offline');
      const assembly = new MessageAssembly();
      const usage = {
        get inputTokens(): number {
          throw thrown;
        },
        outputTokens: 1,
        totalTokens: 1,
      };
      assembly.add({ type: 'usage', usage });
      let failure: unknown;
      try {
        assembly.result();
      } catch (error) {
        const { code, message, cause } = error as MiddlewareError;
        failure = { code, message, cause };
      }
      expect(failure).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        message:
          '[ERR_INVALID_OPTIONS] Agent: reading modelResult.usage.inputTokens threw: meter offline; pass plain data: arrays and objects without cycles, whose properties read without throwing.',
        cause: thrown,
      });
    });
  });

  describe('a tool use whose input is nested', () => {
    /** JSON of `levels` nested arrays around a `{ "__proto__": 1 }` object. */
    const nested = (levels: number): string => `${'['.repeat(levels)}{"__proto__":1}${']'.repeat(levels)}`;
    /** Every object of a parsed value, outermost first. */
    const parts = (value: unknown): unknown[] =>
      typeof value === 'object' && value !== null ? [value, ...Object.values(value).flatMap(parts)] : [];
    /** The input of a result's only block, for a tool use streamed with `json`. */
    const inputOf = (json: string): unknown => {
      const assembly = new MessageAssembly();
      assembly.add({ type: 'toolUseStart', toolUseId: 'a', name: 'weather' });
      assembly.add({ type: 'toolUseDelta', input: json });
      const [block] = assembly.result().message.content;
      return (block as { readonly input: unknown }).input;
    };

    it.each([1, 63, 64, 65, 200])('gives the parsed input frozen all the way down, own "__proto__" keys kept (%s levels)', (levels) => {
      const input = inputOf(nested(levels));
      expect({ input, frozen: parts(input).every((part) => Object.isFrozen(part)), count: parts(input).length }).toEqual({
        input: JSON.parse(nested(levels)) as unknown,
        frozen: true,
        count: levels + 1,
      });
    });

    it('refuses input nested deeper than 1000 levels, naming it from modelResult', () => {
      expect(() => inputOf(nested(1001))).toThrow(
        /^\[ERR_INVALID_OPTIONS\] Agent: modelResult\.message\.content\[0\]\.input\[0\].* is nested deeper than 1000 levels/,
      );
    });
  });

  it('returns a result frozen all the way down', () => {
    const assembly = new MessageAssembly();
    assembly.add({ type: 'textDelta', text: 'Looking.' });
    assembly.add({ type: 'toolUseStart', toolUseId: 'a', name: 'weather' });
    assembly.add({ type: 'toolUseDelta', input: '{"city":"Oslo","days":[1,2]}' });
    assembly.add({ type: 'usage', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } });
    assembly.add({ type: 'messageStop', stopReason: 'toolUse' });
    const result = assembly.result();
    const parts = (value: unknown): unknown[] =>
      typeof value === 'object' && value !== null ? [value, ...Object.values(value).flatMap(parts)] : [];
    expect({ result, unfrozen: parts(result).filter((part) => !Object.isFrozen(part)) }).toEqual({
      result: {
        type: 'modelResult',
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'toolUse', toolUseId: 'a', name: 'weather', input: { city: 'Oslo', days: [1, 2] } },
          ],
        },
        stopReason: 'toolUse',
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      },
      unfrozen: [],
    });
  });

  it('joins a long streamed answer into one text block, in stream order', () => {
    const assembly = new MessageAssembly();
    const words = Array.from({ length: 5000 }, (_, index) => `word${index} `);
    for (const text of words) assembly.add({ type: 'textDelta', text });
    expect(assembly.result().message.content).toEqual([{ type: 'text', text: words.join('') }]);
  });
});
