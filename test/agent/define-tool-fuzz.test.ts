/**
 * Tools made by `defineTool` under generated input (MW-185, MW-139): what
 * the schema accepts reaches `run` unchanged, anything else is refused with
 * ERR_TOOL_INPUT_INVALID, the tool's own errors pass through as they are, and
 * input a model streams as JSON is checked for its own keys only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, defineTool, type ModelStreamEvent, type ToolRunContext } from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';
import { anyValue, escapedAsync, foreignPrototypes, pieces } from './untrusted-values';

const schema = z.strictObject({ q: z.number(), isAdmin: z.boolean().optional(), tags: z.array(z.string()).optional() });

/** A run context for calling a tool's `run` directly. */
const context: ToolRunContext = Object.freeze({
  toolUse: Object.freeze({ type: 'toolUse', toolUseId: 'u1', name: 'search', input: {} }),
  signal: new AbortController().signal,
  invocationState: {},
  interrupt: () => {
    throw new Error('no questions here');
  },
});

/** Input the schema accepts: exactly its keys, of its types. */
const accepted = fc.record(
  { q: fc.integer(), isAdmin: fc.boolean(), tags: fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }) },
  { requiredKeys: ['q'] },
);

/** The JSON text of an object whose keys may repeat and include `__proto__`, as a prompt-injected model writes it. */
const hostileText: fc.Arbitrary<string> = fc.letrec((tie) => ({
  object: fc
    .array(
      fc.tuple(
        fc.constantFrom('__proto__', 'q', 'isAdmin', 'tags', 'constructor'),
        fc.oneof({ depthSize: 'small' }, fc.integer(), fc.boolean(), fc.constant(['a']), tie('object')),
      ),
      { maxLength: 4 },
    )
    .map(
      (entries) =>
        `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${typeof value === 'string' ? value : JSON.stringify(value)}`).join(',')}}`,
    ),
})).object;

describe('defineTool', () => {
  describe('run with generated input', () => {
    it('hands run exactly the input its schema accepts, and refuses anything else with ERR_TOOL_INPUT_INVALID', async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(accepted, anyValue), async (input) => {
          const received: unknown[] = [];
          const tool = defineTool({ name: 'search', description: 'Searches.', input: schema, run: (data) => received.push(data) });
          const fits = schema.safeParse(input).success;
          const thrown = await escapedAsync(async () => tool.run?.(input, context));
          expect([thrown, received, foreignPrototypes(received)]).toEqual(
            fits ? ['none', [input], []] : ['ERR_TOOL_INPUT_INVALID', [], []],
          );
        }),
        { numRuns: 300 },
      );
    });

    it("passes the tool's own error through as the very object", async () => {
      await fc.assert(
        fc.asyncProperty(accepted, anyValue, async (input, thrownValue) => {
          const tool = defineTool({
            name: 'search',
            description: 'Searches.',
            input: schema,
            run: () => {
              throw thrownValue;
            },
          });
          let caught: unknown = 'nothing';
          try {
            await tool.run?.(input, context);
          } catch (error) {
            caught = error;
          }
          expect(caught).toBe(thrownValue);
        }),
        { numRuns: 200 },
      );
    });
  });

  describe('called by a model streaming hostile JSON', () => {
    it('checks only the keys the text gives the input as its own: run gets what the schema makes of JSON.parse of the text', async () => {
      await fc.assert(
        fc.asyncProperty(hostileText, fc.array(fc.nat(), { maxLength: 4 }), async (text, cuts) => {
          const received: unknown[] = [];
          const tool = defineTool({ name: 'search', description: 'Searches.', input: schema, run: (data) => received.push(data) });
          const events: ModelStreamEvent[] = [
            { type: 'messageStart', role: 'assistant' },
            { type: 'toolUseStart', toolUseId: 'u1', name: 'search' },
            ...pieces(text, cuts).map((input): ModelStreamEvent => ({ type: 'toolUseDelta', input })),
            { type: 'messageStop', stopReason: 'toolUse' },
          ];
          const agent = new Agent({ model: new ScriptedModel([{ events }, textTurn('done')]), tools: [tool] });
          const result = await agent.invoke('search');
          const oracle = schema.safeParse(JSON.parse(text));
          expect([result.stopReason, received]).toEqual(['endTurn', oracle.success ? [oracle.data] : []]);
        }),
        { numRuns: 200 },
      );
    });
  });
});
