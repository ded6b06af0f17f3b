/**
 * What an MCP tool's call answers (MW-321), read from untrusted results: the
 * four cases of the rule, malformed results, and generated results whose
 * keys include `__proto__`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { answerOf, type McpCall } from '../../src/mcp/call-result';

const call: McpCall = { server: 'docs', request: { kind: 'call', tool: 'search', listedAs: 'docs_search' } };

/** What answerOf throws, as code, stage, phase, handler and message; or what it returns. */
function outcome(result: unknown): unknown {
  try {
    return { value: answerOf(call, result) };
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage, phase: error.phase, handler: error.handler, message: error.message };
  }
}

/** An object with the given own entries, `__proto__` among them set as an ordinary key, as JSON.parse makes it. */
function record(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const made: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(made, key, { value, enumerable: true, writable: true, configurable: true });
  return made;
}

/**
 * The prototype of every object and array in `value`, depth first, as `object` or `array` (`other` for any other):
 * a key `__proto__` copied with an assignment would show as `other`. (`toStrictEqual` cannot compare such values:
 * it reads `constructor` as the type, which here is a key of the data.)
 */
function prototypes(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const prototype: unknown = Object.getPrototypeOf(value);
  const own = prototype === Object.prototype ? 'object' : prototype === Array.prototype ? 'array' : 'other';
  return [own, ...Object.values(value).flatMap(prototypes)];
}

describe('answerOf', () => {
  describe('a result the rule reads', () => {
    it('returns the single text of the content', () => {
      expect(outcome({ content: [{ type: 'text', text: 'found' }] })).toEqual({ value: 'found' });
    });

    it('returns the structured content before the content', () => {
      expect(outcome({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } })).toEqual({ value: { n: 1 } });
    });

    it('returns every content item as JSON when there is not exactly one text', () => {
      const items = [
        { type: 'text', text: 'a' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'A' } },
        { type: 'resource_link', uri: 'file:///b.txt', name: 'b' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ];
      expect([outcome({ content: items }), outcome({ content: [] }), outcome({}), outcome({ structuredContent: [1] })]).toEqual([
        { value: items },
        { value: [] },
        { value: [] },
        { value: [] },
      ]);
    });

    it('throws ERR_MCP_TOOL_ERROR ending with the texts of an error result, the result as cause', () => {
      let thrown: unknown;
      const result = {
        isError: true,
        content: [
          { type: 'text', text: 'no quota' },
          { type: 'image', data: 'x', mimeType: 'image/png' },
          { type: 'text', text: 'try later' },
        ],
      };
      try {
        answerOf(call, result);
      } catch (error) {
        thrown = error;
      }
      expect(
        MiddlewareError.isInstance(thrown) && { code: thrown.code, handler: thrown.handler, message: thrown.message, cause: thrown.cause },
      ).toEqual({
        code: 'ERR_MCP_TOOL_ERROR',
        handler: 'docs_search',
        message: expect.stringMatching(/"search".*"docs".*: no quota\ntry later$/s) as unknown,
        cause: result,
      });
      expect(outcome({ isError: true })).toMatchObject({
        code: 'ERR_MCP_TOOL_ERROR',
        message: expect.stringMatching(/\(no text\)$/) as unknown,
      });
    });
  });

  describe('a malformed result', () => {
    it.each([
      ['not an object', 'text'],
      ['null', null],
      ['an array', [{ type: 'text', text: 'a' }]],
      ['content not an array', { content: { type: 'text', text: 'a' } }],
      ['a value JSON cannot carry', { structuredContent: { n: 1n } }],
    ])('throws ERR_MCP_PROTOCOL for %s', (_name, result) => {
      expect(outcome(result)).toMatchObject({ code: 'ERR_MCP_PROTOCOL', stage: 'executeTool', phase: 'terminal', handler: 'docs_search' });
    });
  });

  describe('a value JSON cannot carry', () => {
    it('throws ERR_MCP_PROTOCOL naming where in the result the value is', () => {
      expect(outcome({ structuredContent: { hits: [{ score: 1n }] } })).toEqual({
        code: 'ERR_MCP_PROTOCOL',
        stage: 'executeTool',
        phase: 'terminal',
        handler: 'docs_search',
        message:
          '[ERR_MCP_PROTOCOL] calling tool "search" of MCP server "docs": the answer holds a value that is not JSON (structuredContent.hits[0].score is a BigInt), which MCP does not allow. The server does not follow the Model Context Protocol: fix or update it.',
      });
    });
  });

  describe('generated results with __proto__ keys', () => {
    const key = fc.constantFrom('__proto__', 'constructor', 'toString', 'value', 'a');
    const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }).map(record),
      ),
    })).node;
    const structured = fc.array(fc.tuple(key, tree), { maxLength: 4 }).map(record);

    it('copies structured content as JSON.parse reads its text, without touching any prototype', () => {
      fc.assert(
        fc.property(structured, (content) => {
          const copied = answerOf(call, { structuredContent: content, content: [] });
          expect({ text: JSON.stringify(copied), prototypes: prototypes(copied), frozen: Object.isFrozen(copied) }).toEqual({
            text: JSON.stringify(content),
            prototypes: prototypes(JSON.parse(JSON.stringify(content))),
            frozen: true,
          });
        }),
        { numRuns: 60 },
      );
    });

    it('copies content items as JSON.parse reads their text', () => {
      fc.assert(
        fc.property(fc.array(structured, { minLength: 2, maxLength: 3 }), (items) => {
          const copied = answerOf(call, { content: items });
          expect({ text: JSON.stringify(copied), prototypes: prototypes(copied) }).toEqual({
            text: JSON.stringify(items),
            prototypes: prototypes(JSON.parse(JSON.stringify(items))),
          });
        }),
        { numRuns: 40 },
      );
    });
  });
});
