/**
 * The Strands side of the side-by-side figures (`bench/strands.ts`): a ratio
 * against Strands only means something if both sides do the same work, so
 * the shared consumer and Strands' handlers and terminals are held here to
 * giving what ours give for the same figure.
 */
import { describe, expect, it } from 'vitest';
import { CONTEXT, PlainStage, registryWithWraps, streamingTerminal } from '../../bench/fixtures';
import { drainToResult, loadStrands, strandsPassThrough, strandsTerminal } from '../../bench/strands';

async function* returning<TEvent, TReturn>(events: readonly TEvent[], value: TReturn): AsyncGenerator<TEvent, TReturn, undefined> {
  yield* events;
  return value;
}

/** Every event an async generator yields, and what it returns. */
async function everything<TEvent, TReturn>(
  events: AsyncGenerator<TEvent, TReturn, undefined>,
): Promise<{ events: TEvent[]; returned: TReturn }> {
  const seen: TEvent[] = [];
  for (;;) {
    const pulled = await events.next();
    if (pulled.done === true) return { events: seen, returned: pulled.value };
    seen.push(pulled.value);
  }
}

describe('drainToResult', () => {
  describe('a generator that returns a value', () => {
    it('resolves to the returned value, not the last event', async () => {
      expect(await drainToResult(returning(['a', 'b'], 'result'))).toEqual('result');
    });
  });

  describe('a generator that returns nothing', () => {
    it('resolves to its last event', async () => {
      expect(await drainToResult(returning(['a', 'b'], undefined))).toEqual('b');
    });

    it('resolves to undefined when it yields nothing either', async () => {
      expect(await drainToResult(returning<string, undefined>([], undefined))).toEqual(undefined);
    });
  });

  describe('a generator that throws', () => {
    it('rejects with the same error', async () => {
      const error = new Error('model failed');
      const failing = (async function* fails(): AsyncGenerator<string, void, undefined> {
        yield 'a';
        throw error;
      })();
      await expect(drainToResult(failing)).rejects.toBe(error);
    });
  });
});

describe('strandsTerminal', () => {
  describe('with two deltas', () => {
    it('yields the events of streamingTerminal and returns the result event', async () => {
      const ours = await everything(
        streamingTerminal(2)(CONTEXT, { stage: PlainStage, signal: new AbortController().signal, state: undefined }),
      );
      expect(await everything(strandsTerminal(2)(CONTEXT))).toEqual({ events: ours.events, returned: ours.events.at(-1) });
    });
  });
});

describe('strandsPassThrough', () => {
  describe("five of them on Strands' registry", () => {
    it('yield the events our registry yields through five pass-through handlers, and return the result', async () => {
      const strands = await loadStrands();
      const stage = strands.createStage('benchPlain');
      const registry = strands.createRegistry();
      for (let index = 0; index < 5; index++) registry.add(stage, strandsPassThrough());
      const { registry: ours } = registryWithWraps(PlainStage, 5);
      const oursEvents = (await everything(ours.invoke(PlainStage, CONTEXT, streamingTerminal(3)))).events;
      expect(await everything(registry.invoke(stage, CONTEXT, strandsTerminal(3)))).toEqual({
        events: oursEvents,
        returned: oursEvents.at(-1),
      });
    });
  });
});

describe('loadStrands', () => {
  describe('the state store and its writeback', () => {
    it('copies on get and writes the other store back', async () => {
      const strands = await loadStrands();
      const usage = { outputTokens: 1 };
      const store = strands.createStateStore({ usage });
      const forModel = strands.createStateStore(store.getAll());
      const copy = forModel.get('usage') as typeof usage;
      copy.outputTokens += 1;
      forModel.set('usage', copy);
      strands.loadState(store, forModel);
      expect({ store: store.getAll(), original: usage }).toEqual({ store: { usage: { outputTokens: 2 } }, original: { outputTokens: 1 } });
    });
  });
});
