import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type MiddlewareResult } from '../../src/core/index';
import {
  abortListeners,
  appendOutput,
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

type Result = Extract<TestEvent, { type: 'result' }>;

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
  describe('aborted before start', () => {
    it('rejects the first pull with ERR_ABORTED and runs nothing', async () => {
      const trace: string[] = [];
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      registry.add(stage.Input, (context) => {
        trace.push('input');
        return context;
      });
      registry.add(stage.Wrap, tracedLayer('outer', trace));
      const controller = new AbortController();
      const reason = new Error('user pressed stop');
      controller.abort(reason);
      const state = recordingState({ turns: 0 });
      const getState = vi.spyOn(state, 'get');
      const outcome = await collect(registry.invoke(stage, 'c', tracedTerminal(trace), { signal: controller.signal, state }));
      expectAborted(outcome.error, reason);
      expect({ events: outcome.events, trace, writes: state.writes, reads: getState.mock.calls.length }).toEqual({
        events: [],
        trace: [],
        writes: [],
        reads: 0,
      });
      expect(abortListeners(controller.signal)).toBe(0);
    });
  });

  describe('aborted during the Input phase', () => {
    it('stops after the Input handler that was running and enters no layer', async () => {
      const trace: string[] = [];
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      const reason = new Error('stop during input');
      const waiting = gate();
      const entered = gate();
      registry.add(stage.Input, async (context) => {
        trace.push('input 1');
        entered.open();
        await waiting.promise;
        return `${context}+1`;
      });
      registry.add(stage.Input, (context) => {
        trace.push('input 2');
        return context;
      });
      registry.add(stage.Wrap, tracedLayer('outer', trace));
      const state = recordingState({ turns: 0 });
      const pending = collect(registry.invoke(stage, 'c', tracedTerminal(trace), { signal: controller.signal, state }));
      await entered.promise;
      controller.abort(reason);
      waiting.open();
      const outcome = await pending;
      expectAborted(outcome.error, reason);
      expect({ trace, writes: state.writes }).toEqual({ trace: ['input 1'], writes: [] });
      expect(abortListeners(controller.signal)).toBe(0);
    });
  });

  describe('aborted mid-stream', () => {
    it('closes every entered layer once, innermost first, and writes no state', async () => {
      const trace: string[] = [];
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      registry.add(stage.Wrap, tracedLayer('outer', trace));
      registry.add(stage.Wrap, tracedLayer('inner', trace));
      const controller = new AbortController();
      const reason = new Error('enough');
      const state = recordingState({ turns: 0 });
      const events = registry.invoke(stage, 'c', tracedTerminal(trace, 5), { signal: controller.signal, state });
      const first = await events.next();
      controller.abort(reason);
      const second = await events.next().then(
        () => undefined,
        (error: unknown) => error,
      );
      expectAborted(second, reason);
      expect(first).toEqual({ value: delta('c0'), done: false });
      expect({ trace, writes: state.writes }).toEqual({
        trace: ['outer:enter', 'inner:enter', 'terminal:enter', 'terminal:finally', 'inner:finally', 'outer:finally'],
        writes: [],
      });
      expect(await events.next()).toEqual({ value: undefined, done: true });
      expect(abortListeners(controller.signal)).toBe(0);
    });
  });

  describe('aborted during an Output handler', () => {
    it.each([
      ['a synchronous', false],
      ['an asynchronous', true],
    ])('ends with ERR_ABORTED after %s Output handler, all layers already closed, no state written', async (_label, asynchronous) => {
      const trace: string[] = [];
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      const reason = new Error('stop during output');
      registry.add(stage.Output, appendOutput('+outer', trace));
      registry.add(stage.Output, (outcome: MiddlewareResult<Result>) => {
        trace.push('output:aborting');
        controller.abort(reason);
        return asynchronous ? Promise.resolve(outcome) : outcome;
      });
      registry.add(stage.Wrap, tracedLayer('layer', trace));
      const state = recordingState({ turns: 0 });
      const outcome = await collect(registry.invoke(stage, 'c', tracedTerminal(trace, 1), { signal: controller.signal, state }));
      expectAborted(outcome.error, reason);
      expect({ events: outcome.events, trace, writes: state.writes }).toEqual({
        events: [delta('c0')],
        trace: ['layer:enter', 'terminal:enter', 'terminal:finally', 'layer:finally', 'output:aborting'],
        writes: [],
      });
    });
  });

  describe('abort reasons', () => {
    it.each([
      ['an Error', new Error('reason object')],
      ['a string', 'plain reason'],
      ['a plain object', { why: 'quota' }],
    ])('keeps %s as the cause, by identity', async (_label, reason) => {
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      const events = registry.invoke(stage, 'c', tracedTerminal([], 2), { signal: controller.signal });
      await events.next();
      controller.abort(reason);
      const error = await events.next().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expectAborted(error, reason);
    });

    it('keeps the default AbortError reason when abort() is called without one', async () => {
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      controller.abort();
      const outcome = await collect(registry.invoke(stage, 'c', tracedTerminal([]), { signal: controller.signal }));
      expectAborted(outcome.error, controller.signal.reason);
      expect((controller.signal.reason as DOMException).name).toBe('AbortError');
    });
  });

  describe('a narrowed signal (next(context, { signal }))', () => {
    it('adds one listener to each signal while the invoke runs, and removes both when it settles', async () => {
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      const extra = new AbortController();
      const counts: number[] = [];
      registry.add(stage.Wrap, async function* narrowing(_context, next) {
        yield* next(undefined, { signal: extra.signal });
        counts.push(abortListeners(controller.signal), abortListeners(extra.signal));
      });
      const outcome = await collect(registry.invoke(stage, 'c', tracedTerminal([], 1), { signal: controller.signal }));
      expect({ outcome, counts, after: [abortListeners(controller.signal), abortListeners(extra.signal)] }).toEqual({
        outcome: { events: [delta('c0'), result('c!')], error: undefined },
        counts: [1, 1],
        after: [0, 0],
      });
    });

    it('shares the one listener of a signal among concurrent invokes narrowing under it', async () => {
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      registry.add(stage.Wrap, async function* narrowing(_context, next) {
        yield* next(undefined, { signal: new AbortController().signal });
      });
      const invokes = Array.from({ length: 15 }, () => registry.invoke(stage, 'c', tracedTerminal([], 2), { signal: controller.signal }));
      await Promise.all(invokes.map((events) => events.next()));
      const during = abortListeners(controller.signal);
      await Promise.all(invokes.map((events) => collect(events)));
      expect([during, abortListeners(controller.signal)]).toEqual([1, 0]);
    });

    it('makes next() throw ERR_ABORTED with the given signal reason when it is already aborted, which the handler may catch', async () => {
      const stage = modelStage();
      const registry = new MiddlewareRegistry();
      const extra = new AbortController();
      const reason = new Error('deadline passed');
      extra.abort(reason);
      const seen: unknown[] = [];
      registry.add(stage.Wrap, async function* deadline(_context, next) {
        try {
          yield* next(undefined, { signal: extra.signal });
        } catch (error) {
          seen.push((error as MiddlewareError).code, (error as MiddlewareError).cause);
          yield result('fallback');
        }
      });
      const terminal = vi.fn(tracedTerminal([]));
      const outcome = await collect(registry.invoke(stage, 'c', terminal, { signal: new AbortController().signal }));
      expect({ outcome, seen, terminalCalls: terminal.mock.calls.length }).toEqual({
        outcome: { events: [result('fallback')], error: undefined },
        seen: ['ERR_ABORTED', reason],
        terminalCalls: 0,
      });
    });
  });
});
