/**
 * Snapshot restore under generated input (MW-136, MW-139): what is accepted
 * round-trips unchanged, with plain prototypes only, and whatever is given,
 * nothing but a MiddlewareError with a code escapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentSnapshot } from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';
import { anyValue, escaped, foreignPrototypes, jsonObject, jsonValue, key } from './untrusted-values';

const text = fc.string({ maxLength: 6 });
const id = fc.constantFrom('u1', 'u2', 'u3', '__proto__', 'constructor');

const textBlock = fc.record({ type: fc.constant('text'), text });
const jsonBlock = fc.record({ type: fc.constant('json'), json: jsonValue });
const toolResult = (name: fc.Arbitrary<string>, required: ('name' | 'toolUseId')[]) =>
  fc.record(
    {
      type: fc.constant('toolResult'),
      toolUseId: id,
      name,
      status: fc.constantFrom('success', 'error'),
      content: fc.array(fc.oneof(textBlock, jsonBlock), { maxLength: 2 }),
    },
    { requiredKeys: ['type', 'toolUseId', 'status', 'content', ...required] },
  );

/** Any block of MW-100, and blocks of types the kit does not read. */
const block = fc.oneof(
  textBlock,
  fc.record({ type: fc.constant('reasoning'), text, signature: text }, { requiredKeys: ['type', 'text'] }),
  fc.record({ type: fc.constant('toolUse'), toolUseId: id, name: text, input: jsonValue }),
  toolResult(text, []),
  fc.record({ type: fc.constant('cachePoint'), cacheType: text }),
  fc.record({ type: fc.constantFrom('image', '__proto__'), data: jsonValue }),
);

const message = fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.array(block, { maxLength: 3 }) });
const usage = fc.record({ inputTokens: fc.nat(), outputTokens: fc.nat(), totalTokens: fc.nat() });
const interrupts = fc.array(fc.record({ id: text, name: text, reason: jsonValue }), { minLength: 1, maxLength: 2 });
const responses = fc.dictionary(key, jsonValue, { maxKeys: 3, noNullPrototype: true });

/** A halted turn: tool uses of distinct ids, results for some of them, and those among them that end the run. */
const turn = fc
  .uniqueArray(fc.record({ type: fc.constant('toolUse'), toolUseId: id, name: text, input: jsonValue }), {
    minLength: 1,
    maxLength: 3,
    selector: (toolUse) => toolUse.toolUseId,
  })
  .chain((toolUses) =>
    fc.record({
      message: fc.constant({ role: 'assistant', content: toolUses }),
      results: fc
        .subarray(toolUses)
        .chain((answered) =>
          fc.tuple(
            ...answered.map((toolUse) =>
              toolResult(fc.constant(toolUse.name), ['name']).map((result) => ({ ...result, toolUseId: toolUse.toolUseId })),
            ),
          ),
        ),
      terminating: fc.constant([] as string[]),
    }),
  )
  .chain(({ message, results, terminating }) =>
    fc
      .subarray(results.map((result) => result.toolUseId))
      .map((ending) =>
        ending.length === 0 ? { message, results } : { message, results, terminating: ending.length === 0 ? terminating : ending },
      ),
  );

const halted = fc.oneof(
  fc.constant(null),
  fc.record({ interrupts, responses, input: fc.array(message, { maxLength: 2 }), turn: fc.constant(null), invocationState: jsonObject }),
  fc.record({ interrupts, responses, input: fc.constant([]), turn, invocationState: jsonObject }),
);

/** A snapshot as its JSON text gives it back. */
const snapshot = fc
  .record({ version: fc.constant(1), messages: fc.array(message, { maxLength: 3 }), modelState: jsonObject, usage, halted })
  .map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>);

/** The agent restored from `value`. */
const restored = (value: unknown): Agent => new Agent({ model: new ScriptedModel([]), snapshot: value as AgentSnapshot });

/** Every path to a part of a JSON value (the value itself first). */
function partsOf(value: unknown, path: readonly string[] = []): (readonly string[])[] {
  if (typeof value !== 'object' || value === null) return [path];
  return [path, ...Object.keys(value).flatMap((name) => partsOf((value as Record<string, unknown>)[name], [...path, name]))];
}

/** A copy of `value` whose part at `path` is `replacement`, or deleted when `replacement` is absent. */
function replaced(value: unknown, path: readonly string[], replacement: { readonly value: unknown } | undefined): unknown {
  if (path.length === 0) return replacement === undefined ? undefined : replacement.value;
  const copy = structuredClone(value) as Record<string, unknown>;
  let parent = copy;
  for (const name of path.slice(0, -1)) parent = parent[name] as Record<string, unknown>;
  const last = path[path.length - 1] as string;
  if (replacement === undefined) delete parent[last];
  else Object.defineProperty(parent, last, { value: replacement.value, writable: true, enumerable: true, configurable: true });
  return copy;
}

describe('Agent', () => {
  describe('restored from a generated snapshot', () => {
    it('gives back the same snapshot, its history and model state with plain prototypes only', () => {
      fc.assert(
        fc.property(snapshot, (given) => {
          const agent = restored(structuredClone(given));
          const again = agent.snapshot();
          expect([
            again,
            JSON.stringify(again),
            foreignPrototypes(again),
            foreignPrototypes(agent.messages),
            foreignPrototypes(agent.modelState),
          ]).toEqual([given, JSON.stringify(given), [], [], []]);
        }),
        { numRuns: 250 },
      );
    });
  });

  describe('resumed after a restore from a generated halted snapshot', () => {
    it('ends its run, every message of it with plain prototypes only', async () => {
      const haltedSnapshot = snapshot.filter((given) => given.halted !== null) as fc.Arbitrary<{
        halted: { turn: { terminating?: unknown } | null };
      }>;
      await fc.assert(
        fc.asyncProperty(haltedSnapshot, async (given) => {
          const model = new ScriptedModel(Array.from({ length: 4 }, () => textTurn('ok')));
          const agent = new Agent({ model, snapshot: structuredClone(given) as unknown as AgentSnapshot });
          const responses = Object.fromEntries(agent.pendingInterrupts.map((interrupt) => [interrupt.id, 'yes']));
          const result = await agent.resume(responses);
          // A recorded result that asked to end the run stops it after the turn (MW-171).
          const ending = given.halted.turn?.terminating === undefined ? 'endTurn' : 'stopped';
          expect([result.stopReason, foreignPrototypes(agent.messages), foreignPrototypes(agent.snapshot())]).toEqual([ending, [], []]);
        }),
        { numRuns: 200 },
      );
    });
  });

  describe('restored from a snapshot with one part replaced or removed', () => {
    it('restores it or refuses it with a coded MiddlewareError, and what it restores has plain prototypes only', () => {
      const changed = snapshot.chain((given) => {
        const paths = partsOf(given);
        return fc
          .record({
            path: fc.constantFrom(...paths),
            replacement: fc.option(fc.record({ value: anyValue }), { nil: undefined }),
          })
          .map(({ path, replacement }) => replaced(given, path, replacement));
      });
      fc.assert(
        fc.property(changed, (given) => {
          let agent: Agent | undefined;
          const thrown = escaped(() => (agent = restored(given)));
          if (agent === undefined) {
            expect(['ERR_INVALID_OPTIONS', 'ERR_SNAPSHOT_VERSION']).toContain(thrown);
            return;
          }
          const restoredAgent = agent;
          let again: unknown;
          const snapshotThrown = escaped(() => (again = restoredAgent.snapshot()));
          expect([
            thrown,
            ['none', 'ERR_INVALID_OPTIONS'].includes(snapshotThrown as string),
            foreignPrototypes(again),
            foreignPrototypes(restoredAgent.messages, true),
            foreignPrototypes(restoredAgent.modelState, true),
          ]).toEqual(['none', true, [], [], []]);
        }),
        { numRuns: 300 },
      );
    });

    it('refuses anything that is not a snapshot at all with a coded MiddlewareError', () => {
      fc.assert(
        fc.property(anyValue, (given) => {
          expect(['ERR_INVALID_OPTIONS', 'none']).toContain(escaped(() => restored(given)));
        }),
        { numRuns: 200 },
      );
    });
  });
});
