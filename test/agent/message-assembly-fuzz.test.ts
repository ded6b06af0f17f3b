/**
 * Tool input assembled from a model's JSON deltas under generated input
 * (MW-100, MW-139): the input is what `JSON.parse` makes of the joined text,
 * own keys and plain prototypes only, however the text is cut and however
 * the deltas of parallel tool uses interleave; text that is not JSON is kept
 * as it is, and nothing escapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageAssembly } from '../../src/agent/model/message-assembly';
import type { ModelStreamEvent, ToolUseBlock } from '../../src/agent/index';
import { escaped, foreignPrototypes, jsonValue, pieces } from './untrusted-values';

/** The tool-use blocks of the message the events make. */
function toolUses(events: readonly ModelStreamEvent[]): readonly ToolUseBlock[] {
  const assembly = new MessageAssembly();
  for (const event of events) assembly.add(event);
  return assembly.result().message.content.filter((block): block is ToolUseBlock => block.type === 'toolUse');
}

/** Tool uses u0, u1, ... whose input texts stream in the given pieces, the deltas of all of them interleaved in `order`. */
function interleaved(texts: readonly (readonly string[])[], order: readonly number[]): ModelStreamEvent[] {
  const events: ModelStreamEvent[] = texts.map((_text, index) => ({ type: 'toolUseStart', toolUseId: `u${index}`, name: 'lookup' }));
  const next = texts.map(() => 0);
  const remaining = (): number[] => texts.flatMap((text, index) => ((next[index] as number) < text.length ? [index] : []));
  for (let step = 0; remaining().length > 0; step++) {
    const open = remaining();
    const index = open[(order[step % Math.max(order.length, 1)] ?? 0) % open.length] as number;
    const piece = (texts[index] as readonly string[])[next[index] as number] as string;
    next[index] = (next[index] as number) + 1;
    events.push({ type: 'toolUseDelta', toolUseId: `u${index}`, input: piece });
  }
  return events;
}

describe('MessageAssembly', () => {
  describe('tool inputs of generated JSON, cut anywhere, of parallel tool uses', () => {
    it('gives each tool use the value JSON.parse makes of its text, with the same JSON text and plain prototypes', () => {
      const input = fc.array(fc.tuple(jsonValue, fc.array(fc.nat(), { maxLength: 6 })), { minLength: 1, maxLength: 3 });
      fc.assert(
        fc.property(input, fc.array(fc.nat(), { maxLength: 12 }), (uses, order) => {
          const texts = uses.map(([value]) => JSON.stringify(value));
          const blocks = toolUses(
            interleaved(
              uses.map(([_value, cuts], index) => pieces(texts[index] as string, cuts)),
              order,
            ),
          );
          expect([
            blocks.map((block) => block.input),
            blocks.map((block) => JSON.stringify(block.input)),
            foreignPrototypes(blocks),
          ]).toEqual([texts.map((text) => JSON.parse(text) as unknown), texts, []]);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('tool input text from a broken or hostile model', () => {
    it('keeps what JSON.parse accepts as it parses it, text it refuses as the text, and throws nothing', () => {
      const text = fc.oneof(
        fc.string({ maxLength: 12 }),
        jsonValue.map((value) => JSON.stringify(value)),
        jsonValue.chain((value) => fc.nat().map((cut) => JSON.stringify(value).slice(0, cut))),
      );
      fc.assert(
        fc.property(text, fc.array(fc.nat(), { maxLength: 4 }), (given, cuts) => {
          const events: ModelStreamEvent[] = [
            { type: 'toolUseStart', toolUseId: 'u1', name: 'lookup' },
            ...pieces(given, cuts).map((input): ModelStreamEvent => ({ type: 'toolUseDelta', input })),
          ];
          let blocks: readonly ToolUseBlock[] = [];
          const thrown = escaped(() => (blocks = toolUses(events)));
          let expected: unknown = {};
          if (given.trim().length > 0) {
            try {
              expected = JSON.parse(given) as unknown;
            } catch {
              expected = given;
            }
          }
          expect([thrown, blocks.map((block) => block.input), foreignPrototypes(blocks)]).toEqual(['none', [expected], []]);
        }),
        { numRuns: 300 },
      );
    });
  });
});
