import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, createStage } from '../../src/core/index';
import { scriptedTerminal, throws, updatesState, waits } from '../../src/testing/index';
import { manualTimers, settle } from '../middleware/fixtures';

const Stage = createStage<{ readonly n: number }, string>('scripted');

/** Pulls every event of one terminal call, returning the events and the error, if any. */
async function drain(events: AsyncIterable<string>): Promise<{ events: string[]; error: unknown }> {
  const seen: string[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { events: seen, error };
  }
  return { events: seen, error: undefined };
}

const run = { stage: Stage, signal: new AbortController().signal, state: undefined };

describe('scriptedTerminal', () => {
  describe('per call', () => {
    it('plays call n the nth script and replays the last one after the end', async () => {
      const terminal = scriptedTerminal([['a1', 'a2'], ['b1']]);
      const played = [];
      for (let call = 0; call < 3; call++) played.push(await drain(terminal({ n: call }, run)));
      expect(played.map((call) => call.events)).toEqual([['a1', 'a2'], ['b1'], ['b1']]);
      expect(terminal.calls.map((call) => [call.context, call.events, call.outcome])).toEqual([
        [{ n: 0 }, 2, 'completed'],
        [{ n: 1 }, 1, 'completed'],
        [{ n: 2 }, 1, 'completed'],
      ]);
    });

    it('throws the very error a throws step names, after the events before it', async () => {
      const failure = new Error('scripted failure');
      const terminal = scriptedTerminal([['a', throws(failure), 'never']]);
      expect(await drain(terminal({ n: 0 }, run))).toEqual({ events: ['a'], error: failure });
      expect((await drain(terminal({ n: 1 }, run))).error).toBe(failure);
      expect(terminal.calls[0]?.outcome).toBe('threw');
    });

    it('yields an event that carries the action key as an event: only the step builders make actions', async () => {
      const lookalike = { [Symbol.for('staged-middleware.testing.script-action')]: 'throw', error: new Error('not an action') };
      const terminal = scriptedTerminal([[lookalike]]);
      const seen: unknown[] = [];
      for await (const event of terminal({ n: 0 }, run)) seen.push(event);
      expect(seen).toEqual([lookalike]);
    });

    it('records a call stopped at a yield as closed', async () => {
      const terminal = scriptedTerminal([['a', 'b']]);
      const events = terminal({ n: 0 }, run);
      await events.next();
      await events.return(undefined);
      expect(terminal.calls[0]).toMatchObject({ events: 1, outcome: 'closed' });
    });
  });

  describe('waits', () => {
    it('waits the given time on its clock', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([['a', waits(100), 'b']], { timers });
      const events = terminal({ n: 0 }, run);
      expect(await events.next()).toEqual({ value: 'a', done: false });
      const second = events.next();
      await settle();
      expect(timers.delays).toEqual([100]);
      await timers.advance(100);
      expect(await second).toEqual({ value: 'b', done: false });
    });

    it('throws the signal reason, as fetch does, when aborted while waiting, and clears its timer', async () => {
      const timers = manualTimers();
      const controller = new AbortController();
      const terminal = scriptedTerminal([[waits(1_000), 'never']], { timers });
      const pending = drain(terminal({ n: 0 }, { ...run, signal: controller.signal }));
      await settle();
      controller.abort('cancelled');
      expect(await pending).toEqual({ events: [], error: 'cancelled' });
      expect(timers.pending()).toBe(0);
    });

    // A runtime timer of 2^31 ms or more fires after about 1 ms; the wait used to end there.
    it('waits 2^31 ms or more in full, in slices of at most 2^31 - 1 ms', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[waits(2 ** 31), 'late']], { timers });
      const pulled = terminal({ n: 0 }, run).next();
      await timers.advance(2 ** 31 - 1);
      expect(timers.delays).toEqual([2 ** 31 - 1, 1]);
      await timers.advance(1);
      expect(await pulled).toEqual({ value: 'late', done: false });
    });

    it('waits until abort with Infinity, and fails at once when already aborted', async () => {
      const controller = new AbortController();
      controller.abort('early');
      const terminal = scriptedTerminal([[waits(Infinity), 'never']]);
      expect(await drain(terminal({ n: 0 }, { ...run, signal: controller.signal }))).toEqual({ events: [], error: 'early' });
    });
  });

  describe('updatesState', () => {
    it('changes the call state draft, which the invoke writes back', async () => {
      const registry = new MiddlewareRegistry();
      let state = { count: 1, note: 'keep' };
      const terminal = scriptedTerminal([
        [
          updatesState<{ count: number }>((draft) => {
            draft.count += 1;
          }),
          'done',
        ],
      ]);
      await registry.run(Stage, { n: 0 }, terminal, {
        state: {
          get: () => state,
          set: (next) => {
            state = next;
          },
        },
      });
      expect(state).toEqual({ count: 2, note: 'keep' });
    });
  });

  describe('a bad script', () => {
    it.each<[unknown]>([[[]], ['a'], [[['a'], 'b']]])('throws ERR_INVALID_OPTIONS for %j', (script) => {
      expect(() => scriptedTerminal(script as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          handler: 'scriptedTerminal',
          message: expect.stringContaining('one array of steps per call'),
        }),
      );
    });

    it('throws ERR_INVALID_OPTIONS for timers without setTimeout', () => {
      expect(() => scriptedTerminal([['a']], { timers: { now: () => 0 } as never })).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          handler: 'scriptedTerminal',
          message: expect.stringContaining('options.timers'),
        }),
      );
    });
  });
});
