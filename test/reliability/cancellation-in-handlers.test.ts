import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  abortListeners,
  collect,
  expectAborted,
  delta,
  gate,
  modelStage,
  recordingState,
  result,
  tracedLayer,
  tracedTerminal,
  type TestEvent,
} from './fixtures';

// Every test runs on fake timers and ends with none pending: the engine must
// never leave a timer behind (it uses none at all).
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'setImmediate'] });
});
afterEach(() => {
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

describe('MiddlewareRegistry.invoke', () => {
  describe('aborted while a handler awaits a slow inner call', () => {
    it('ends with ERR_ABORTED when the terminal rejects with the reason, and leaves no listener', async () => {
      const trace: string[] = [];
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const started = gate();
      registry.add(stage.Wrap, async function* awaiting(_context, next) {
        trace.push('awaiting:enter');
        try {
          const inner = next();
          const first = await inner.next();
          if (first.done !== true) yield first.value;
        } finally {
          trace.push('awaiting:finally');
        }
      });
      const terminal = async function* slow(_context: string, run: { signal: AbortSignal }): AsyncGenerator<TestEvent, void, undefined> {
        trace.push('terminal:enter');
        try {
          started.open();
          await new Promise((_resolve, reject) => {
            run.signal.addEventListener(
              'abort',
              () => {
                reject(run.signal.reason);
              },
              { once: true },
            );
          });
          yield result('never');
        } finally {
          trace.push('terminal:finally');
        }
      };
      const controller = new AbortController();
      const reason = new Error('too slow');
      const pending = collect(registry.invoke(stage, 'c', terminal, { signal: controller.signal }));
      await started.promise;
      expect(abortListeners(controller.signal)).toBe(1);
      controller.abort(reason);
      const outcome = await pending;
      expectAborted(outcome.error, reason);
      expect(trace).toEqual(['awaiting:enter', 'terminal:enter', 'terminal:finally', 'awaiting:finally']);
      expect(abortListeners(controller.signal)).toBe(0);
    });

    it('ends with ERR_ABORTED when the terminal ignores the signal and keeps streaming', async () => {
      const trace: string[] = [];
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      registry.add(stage.Wrap, tracedLayer('layer', trace));
      const controller = new AbortController();
      const reason = new Error('ignored');
      const slow = gate();
      const started = gate();
      const terminal = async function* stubborn(): AsyncGenerator<TestEvent, void, undefined> {
        trace.push('terminal:enter');
        try {
          started.open();
          await slow.promise;
          yield result('late');
        } finally {
          trace.push('terminal:finally');
        }
      };
      const pending = collect(registry.invoke(stage, 'c', terminal, { signal: controller.signal }));
      await started.promise;
      controller.abort(reason);
      slow.open();
      const outcome = await pending;
      expectAborted(outcome.error, reason);
      expect({ events: outcome.events, trace }).toEqual({
        events: [],
        trace: ['layer:enter', 'terminal:enter', 'terminal:finally', 'layer:finally'],
      });
    });
  });

  describe('a handler that swallows the abort', () => {
    it('still ends in ERR_ABORTED when a Wrap handler catches the error and yields a result', async () => {
      const trace: string[] = [];
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      registry.add(stage.Wrap, async function* stubborn(_context, next) {
        try {
          yield* next();
        } catch (error) {
          trace.push(`caught ${(error as Error).message}`);
          yield result('carried on');
        }
      });
      const controller = new AbortController();
      const reason = new Error('stop');
      const started = gate();
      const terminal = async function* listening(
        _context: string,
        run: { signal: AbortSignal },
      ): AsyncGenerator<TestEvent, void, undefined> {
        started.open();
        await new Promise((_resolve, reject) => {
          run.signal.addEventListener(
            'abort',
            () => {
              reject(run.signal.reason);
            },
            { once: true },
          );
        });
        yield result('never');
      };
      const state = recordingState({ turns: 0 });
      const pending = collect(registry.invoke(stage, 'c', terminal, { signal: controller.signal, state }));
      await started.promise;
      controller.abort(reason);
      const outcome = await pending;
      expectAborted(outcome.error, reason);
      expect({ events: outcome.events, trace, writes: state.writes }).toEqual({ events: [], trace: ['caught stop'], writes: [] });
    });

    it('still ends in ERR_ABORTED when a Wrap handler catches the ERR_ABORTED of next() and keeps yielding', async () => {
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      const reason = new Error('stop');
      const codes: string[] = [];
      registry.add(stage.Wrap, async function* retryForever(_context, next) {
        yield delta('first');
        controller.abort(reason);
        try {
          yield* next();
        } catch (error) {
          codes.push((error as MiddlewareError).code);
          yield result('fallback');
        }
      });
      const outcome = await collect(registry.invoke(stage, 'c', tracedTerminal([]), { signal: controller.signal }));
      expectAborted(outcome.error, reason);
      // next() refuses to start on an aborted signal; the handler swallows that and
      // yields a fallback, which the invoke drops: the abort is checked after each pull.
      expect({ events: outcome.events, codes }).toEqual({ events: [delta('first')], codes: ['ERR_ABORTED'] });
    });
  });
});
