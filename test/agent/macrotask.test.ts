import { describe, expect, it } from 'vitest';
import { macrotaskScheduler, nextMacrotask } from '../../src/agent/loop/macrotask';

describe('macrotaskScheduler', () => {
  describe('where setImmediate exists', () => {
    it('schedules with it, before MessageChannel and setTimeout', () => {
      const used: string[] = [];
      const schedule = macrotaskScheduler({
        setImmediate: () => used.push('setImmediate'),
        MessageChannel: globalThis.MessageChannel,
        setTimeout: () => used.push('setTimeout'),
      });
      schedule(() => undefined);
      expect(used).toEqual(['setImmediate']);
    });
  });

  describe('where only MessageChannel and setTimeout exist', () => {
    it('calls back through a message of a channel of its own, which it closes (an open port would keep the process alive)', async () => {
      const closed: Promise<string>[] = [];
      class WatchedChannel extends MessageChannel {
        constructor() {
          super();
          const port = this.port2 as MessagePort & { once(event: 'close', listener: () => void): void };
          closed.push(
            new Promise((resolve) => {
              port.once('close', () => {
                resolve('closed');
              });
            }),
          );
        }
      }
      const used: string[] = [];
      const schedule = macrotaskScheduler({ MessageChannel: WatchedChannel, setTimeout: () => used.push('setTimeout') });
      await new Promise<void>((resolve) => {
        schedule(resolve);
      });
      expect([await Promise.all(closed), used]).toEqual([['closed'], []]);
    });
  });

  describe('where only setTimeout exists', () => {
    it('schedules with setTimeout(callback, 0)', () => {
      const scheduled: unknown[][] = [];
      const callback = (): void => undefined;
      macrotaskScheduler({ setTimeout: (...args: unknown[]) => scheduled.push(args) })(callback);
      expect(scheduled).toEqual([[callback, 0]]);
    });
  });
});

describe('nextMacrotask', () => {
  describe('in Node.js', () => {
    it('resolves after the macrotasks queued before it, not among the promise jobs', async () => {
      const order: string[] = [];
      setImmediate(() => order.push('immediate queued before'));
      const waiting = nextMacrotask().then(() => order.push('resolved'));
      void Promise.resolve().then(() => order.push('promise job'));
      await waiting;
      expect(order).toEqual(['promise job', 'immediate queued before', 'resolved']);
    });
  });
});
