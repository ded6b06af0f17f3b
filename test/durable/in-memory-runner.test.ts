/**
 * The in-memory journal and its step runner (MW-240, MW-241, MW-248): steps
 * record once and replay without running, a runner killed mid-step records
 * nothing and the next one counts the attempt, waits take values sent before
 * or after they are reached, and a replay asking for another entry diverges.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { InMemoryJournal, RunnerKilledError } from '../../src/durable/index';

/** A promise that settles when `resolve` is called, and its resolver. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('InMemoryStepRunner', () => {
  describe('run() on an empty journal', () => {
    it('calls the function with attempt 1 and resolves to a copy of its value', async () => {
      const journal = new InMemoryJournal();
      const value = { total: 3, items: ['a'] };
      const attempts: number[] = [];
      const got = await journal.runner('r').run('sum', async ({ attempt }) => {
        attempts.push(attempt);
        return value;
      });
      expect([got, got === value, attempts]).toEqual([{ total: 3, items: ['a'] }, false, [1]]);
      expect(journal.entries('r')).toEqual([{ kind: 'step', name: 'sum', value: { total: 3, items: ['a'] }, attempts: 1 }]);
    });
  });

  describe('run() replaying a journal', () => {
    it('resolves to the recorded value without calling the function', async () => {
      const journal = new InMemoryJournal();
      await journal.runner('r').run('a', async () => 'first');
      let called = false;
      const got = await journal.runner('r').run('a', async () => {
        called = true;
        return 'second';
      });
      expect([got, called]).toEqual(['first', false]);
    });

    it('rejects with ERR_REPLAY_DIVERGED naming the position, the journal entry and the step asked for', async () => {
      const journal = new InMemoryJournal();
      const first = journal.runner('order-7');
      await first.run('a', async () => 1);
      await first.run('b', async () => 2);
      const second = journal.runner('order-7');
      await second.run('a', async () => 0);
      const error = await second.run('c', async () => 3).catch((thrown: unknown) => thrown);
      expect(MiddlewareError.isInstance(error)).toBe(true);
      expect({ code: (error as MiddlewareError).code, message: (error as Error).message }).toEqual({
        code: 'ERR_REPLAY_DIVERGED',
        message:
          '[ERR_REPLAY_DIVERGED] Durable run "order-7" diverged from its journal at entry 2: the journal holds step "b", the replay asked for step "c". Everything outside steps must replay identically: the same handlers in the same order, the same turn decisions, no clock or random value outside a step. Restore the code the run started with, or start a new run id.',
      });
    });

    it('diverges when a wait stands where a step is asked for', async () => {
      const journal = new InMemoryJournal();
      await journal.send('r', 'approve', true);
      await journal.runner('r').wait('approve', null);
      const error = await journal
        .runner('r')
        .run('approve', async () => 1)
        .catch((thrown: unknown) => thrown);
      expect((error as MiddlewareError).code).toBe('ERR_REPLAY_DIVERGED');
      expect((error as Error).message).toContain('the journal holds wait "approve", the replay asked for step "approve"');
    });
  });

  describe('kill() during a step', () => {
    it('rejects the step at once, records nothing, and the next runner starts the step as attempt 2', async () => {
      const journal = new InMemoryJournal();
      const first = journal.runner('r');
      const release = gate();
      const going = first.run('tool', async () => {
        await release.promise;
        return 'done';
      });
      first.kill();
      release.open();
      const error = await going.catch((thrown: unknown) => thrown);
      expect([error instanceof RunnerKilledError, first.killed, journal.entries('r')]).toEqual([true, true, []]);
      const attempts: number[] = [];
      await journal.runner('r').run('tool', async ({ attempt }) => {
        attempts.push(attempt);
        return 'again';
      });
      expect([attempts, journal.entries('r')]).toEqual([[2], [{ kind: 'step', name: 'tool', value: 'again', attempts: 2 }]]);
    });

    it('refuses every later call of the killed runner', async () => {
      const runner = new InMemoryJournal().runner('r');
      runner.kill();
      await expect(runner.run('a', async () => 1)).rejects.toBeInstanceOf(RunnerKilledError);
      await expect(runner.wait('w', null)).rejects.toBeInstanceOf(RunnerKilledError);
    });
  });

  describe('wait()', () => {
    it('blocks until a value is sent, lists the wait with its request meanwhile, and records the value', async () => {
      const journal = new InMemoryJournal();
      const waiting = journal.runner('r').wait('executeTool:t1:approve', { reason: 'Pays 5' });
      await Promise.resolve();
      expect(journal.waiting('r')).toEqual([{ name: 'executeTool:t1:approve', request: { reason: 'Pays 5' } }]);
      await journal.send('r', 'executeTool:t1:approve', 'yes');
      await journal.send('r', 'executeTool:t1:approve', 'no');
      expect([await waiting, journal.waiting('r')]).toEqual(['yes', []]);
      expect(journal.entries('r')).toEqual([
        { kind: 'wait', name: 'executeTool:t1:approve', request: { reason: 'Pays 5' }, answered: true, value: 'yes' },
      ]);
    });

    it('resolves at once with a value sent before the run reached the wait', async () => {
      const journal = new InMemoryJournal();
      await journal.send('r', 'approve', { ok: true });
      expect(await journal.runner('r').wait('approve', null)).toEqual({ ok: true });
    });

    it('resolves a replayed wait whose value came while no process ran it', async () => {
      const journal = new InMemoryJournal();
      const first = journal.runner('r');
      const waiting = first.wait('approve', null).catch((thrown: unknown) => thrown);
      first.kill();
      expect(await waiting).toBeInstanceOf(RunnerKilledError);
      expect(journal.entries('r')).toEqual([{ kind: 'wait', name: 'approve', request: null, answered: false, value: null }]);
      await journal.send('r', 'approve', 'later');
      expect(await journal.runner('r').wait('approve', null)).toBe('later');
    });
  });

  describe('entries()', () => {
    it('hands out frozen copies, so changing them changes no replay', async () => {
      const journal = new InMemoryJournal();
      await journal.runner('r').run('a', async () => ({ n: 1 }));
      const entries = journal.entries('r');
      expect([Object.isFrozen(entries), Object.isFrozen(entries[0])]).toEqual([true, true]);
      (entries[0] as unknown as { value: { n: number } }).value.n = 2;
      expect(await journal.runner('r').run('a', async () => ({ n: 0 }))).toEqual({ n: 1 });
    });
  });
});

describe('InMemoryJournal.runner', () => {
  describe('with a run id that is not a non-empty string', () => {
    it.each([[''], [undefined], [7]])('throws ERR_INVALID_OPTIONS for %j', (runId) => {
      expect(() => new InMemoryJournal().runner(runId as string)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'InMemoryJournal.runner' }),
      );
    });
  });
});
