/**
 * The AI SDK adapter's stream parts under generated input (MW-186, MW-139):
 * a provider's tool calls reach the tools as `JSON.parse` makes their input
 * text, whatever else the stream holds; and whatever the parts are, a run
 * ends with a history that has plain prototypes and survives a snapshot, or
 * fails with a coded MiddlewareError, the provider's own error, or the error
 * MW-186 gives a finish with reason `error`.
 */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentSnapshot } from '../../src/agent/index';
import { fromAiSdk } from '../../src/ai-sdk/index';
import { ScriptedTool } from '../../src/testing/index';
import { anyValue, escapedAsync, foreignPrototypes, jsonValue, pieces } from '../agent/untrusted-values';
import { finishPart, mockModel, textParts } from './fixtures';

/** The error of the provider's `error` parts: it must come out as this very object. */
const providerError = new Error('the provider failed');

const partId = fc.constantFrom('c0', 'c1', '__proto__');
const toolName = fc.constantFrom('lookup', '__proto__', 'constructor');
const LISTED = ['text-delta', 'reasoning-delta', 'tool-input-start', 'tool-input-delta', 'tool-call', 'finish'] as const;
/** The types of the parts the adapter acts on. */
const ACTED_ON: readonly unknown[] = [...LISTED, 'error'];
const reason = fc.constantFrom('stop', 'tool-calls', 'length', 'content-filter', 'other', 'error');

/** Parts of the types the adapter reads, with fields of the specification's types. */
const wellTyped = fc.oneof(
  fc.record({ type: fc.constantFrom('text-delta', 'reasoning-delta'), id: partId, delta: fc.string({ maxLength: 4 }) }),
  fc.record(
    {
      type: fc.constant('tool-input-start'),
      id: partId,
      toolName,
      providerExecuted: fc.boolean(),
      inputEncoding: fc.constantFrom('json', 'text'),
    },
    { requiredKeys: ['type', 'id', 'toolName'] },
  ),
  fc.record({ type: fc.constant('tool-input-delta'), id: partId, delta: fc.constantFrom('{"__proto__":', '{"q":1', '}', '', '[1,') }),
  fc.record(
    {
      type: fc.constant('tool-call'),
      toolCallId: partId,
      toolName,
      input: jsonValue.map((value) => JSON.stringify(value)),
      providerExecuted: fc.boolean(),
    },
    { requiredKeys: ['type', 'toolCallId', 'toolName', 'input'] },
  ),
  fc.record({
    type: fc.constant('finish'),
    finishReason: fc.oneof(reason, fc.record({ unified: reason, raw: fc.string({ maxLength: 4 }) })),
    usage: fc.record({ inputTokens: fc.oneof(fc.nat(), fc.record({ total: fc.nat() })), outputTokens: fc.nat() }),
  }),
  fc.constant({ type: 'error', error: providerError }),
);

/** Parts of those types whose fields hold anything, and values that are no parts at all. */
const malformed = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom(...LISTED),
      id: anyValue,
      toolName: anyValue,
      delta: anyValue,
      toolCallId: anyValue,
      input: anyValue,
      finishReason: anyValue,
      usage: anyValue,
    },
    { requiredKeys: ['type'] },
  ),
  anyValue,
);

/** What is not a string: a field of the wrong type. */
const notString = anyValue.filter((value) => typeof value !== 'string');

/** Parts the adapter must drop: listed types with a string field of another type, and values that are no listed part. */
const broken = fc.oneof(
  fc.record({
    type: fc.constantFrom('text-delta', 'reasoning-delta', 'tool-input-start', 'tool-input-delta', 'tool-call'),
    id: notString,
    toolName: notString,
    delta: notString,
    toolCallId: notString,
    input: notString,
  }),
  anyValue.filter((value) => !(typeof value === 'object' && value !== null && ACTED_ON.includes((value as { type?: unknown }).type))),
);

/** An agent whose AI SDK model answers `parts` first, then text; its only tool is `lookup`. */
function agentWith(parts: readonly unknown[]): { agent: Agent; lookup: ScriptedTool } {
  const lookup = new ScriptedTool({ name: 'lookup' });
  const later = textParts(['ok']);
  const model = mockModel(parts as LanguageModelV3StreamPart[], later, later, later);
  return { agent: new Agent({ model: fromAiSdk(model), tools: [lookup] }), lookup };
}

/** Inserts the `noise` into `parts`, each at the position its number picks. */
function mixed(parts: readonly unknown[], noise: readonly (readonly [number, unknown])[]): unknown[] {
  const all = [...parts];
  for (const [at, part] of noise) all.splice(at % (all.length + 1), 0, part);
  return all;
}

describe('fromAiSdk', () => {
  describe('tool calls of generated JSON input among parts the adapter does not use', () => {
    it('hands the tool each input as JSON.parse makes its text, and the history holds the same', async () => {
      const call = fc.tuple(jsonValue, fc.array(fc.nat(), { maxLength: 4 }));
      const noise = fc.array(
        fc.tuple(fc.nat(), fc.oneof(broken, fc.record({ type: fc.constantFrom('text-start', 'raw', 'source'), id: partId }))),
        {
          maxLength: 4,
        },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 2 }), noise, async (calls, extra) => {
          const texts = calls.map(([value]) => JSON.stringify(value));
          const parts = calls.flatMap(([_value, cuts], index) => [
            { type: 'tool-input-start', id: `t${index}`, toolName: 'lookup' },
            ...pieces(texts[index] as string, cuts).map((delta) => ({ type: 'tool-input-delta', id: `t${index}`, delta })),
            { type: 'tool-call', toolCallId: `t${index}`, toolName: 'lookup', input: texts[index] },
          ]);
          const malformedOnly = extra.filter(
            ([, part]) => !(typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'finish'),
          );
          const { agent, lookup } = agentWith([...mixed(parts, malformedOnly), finishPart('tool-calls')]);
          await agent.invoke('look up');
          const inputs = agent.messages[1]?.content.flatMap((block) => (block.type === 'toolUse' ? [block.input] : []));
          const expected = texts.map((text) => JSON.parse(text) as unknown);
          expect([lookup.calls.map((recorded) => recorded.input), inputs, foreignPrototypes(agent.messages)]).toEqual([
            expected,
            expected,
            [],
          ]);
        }),
        { numRuns: 200 },
      );
    });
  });

  describe('a response of generated parts', () => {
    it('ends with a history of plain prototypes that a snapshot restores, or fails only with the errors it may', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.oneof(wellTyped, malformed), { maxLength: 12 }), async (parts) => {
          const { agent } = agentWith(parts);
          const thrown = await escapedAsync(() => agent.invoke('go'));
          const errorParts = parts.flatMap((part) =>
            typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'error'
              ? [(part as { error?: unknown }).error]
              : [],
          );
          const allowed =
            thrown === 'none' ||
            typeof thrown === 'string' ||
            errorParts.includes(thrown) ||
            (thrown instanceof Error && thrown.message.startsWith('The AI SDK model finished its response with reason "error"'));
          const saved = JSON.parse(JSON.stringify(agent.snapshot())) as AgentSnapshot;
          const restored = await escapedAsync(async () => new Agent({ model: fromAiSdk(mockModel()), snapshot: saved }));
          expect([allowed, foreignPrototypes(agent.messages), restored]).toEqual([true, [], 'none']);
        }),
        { numRuns: 300 },
      );
    });
  });
});
