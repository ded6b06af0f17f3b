import * as otel from '@opentelemetry/api';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { Instrumentation } from '../../src/core/index';
import { retry, tracing } from '../../src/middleware/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';
import { ModelStage, answer, chunk, type ModelContext } from './fixtures';
import { recordingTracer, tree } from './recording-tracer';

const context: ModelContext = { prompt: 'hi' };

describe('tracing', () => {
  describe('parents of the invoke span', () => {
    it('makes the invoke span a child of the active span the API reports', async () => {
      const { exporter, tracer } = recordingTracer();
      const caller = tracer.startSpan('caller');
      const api = {
        trace: otel.trace,
        context: {
          active: () => otel.trace.setSpan(otel.ROOT_CONTEXT, caller),
          with: <T>(active: Context, fn: () => T): T => otel.context.with(active, fn),
        },
      };
      await runStage(ModelStage, { context, terminal: scriptedTerminal([[answer('x')]]), instrument: [tracing({ api, tracer })] });
      caller.end();
      expect(tree(exporter.getFinishedSpans()).map((span) => [span.name, span.parent])).toEqual([
        ['model terminal', 'model'],
        ['model', 'caller'],
        ['caller', undefined],
      ]);
    });

    it('with only a tracer, starts the invoke span with no context, so the tracer picks its parent', async () => {
      const parents: (Context | undefined)[] = [];
      const { tracer: recording } = recordingTracer();
      const tracer = {
        startSpan: (name: string, options: otel.SpanOptions, parent?: Context): Span => {
          parents.push(parent);
          return recording.startSpan(name, options, parent);
        },
      } as unknown as Tracer;
      await runStage(ModelStage, { context, terminal: scriptedTerminal([[answer('x')]]), instrument: [tracing({ tracer })] });
      expect(parents.length).toBe(2);
      expect(parents[0]).toBeUndefined();
    });

    it('with only a tracer, gives a layer span an immutable context whose span is its parent', async () => {
      const started: { name: string; span: Span; parent: Context | undefined }[] = [];
      const { tracer: recording } = recordingTracer();
      const tracer = {
        startSpan: (name: string, options: otel.SpanOptions, parent?: Context): Span => {
          const span = recording.startSpan(name, options, parent);
          started.push({ name, span, parent });
          return span;
        },
      } as unknown as Tracer;
      await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('x')]]),
        handlers: [[ModelStage.Wrap, retry()]],
        instrument: [tracing({ tracer })],
      });
      const [invoke, outer, terminal] = started;
      expect(started.map((entry) => entry.name)).toEqual(['model', 'model retry', 'model terminal']);
      const parent = terminal?.parent as Context;
      expect(otel.trace.getSpan(parent)).toBe(outer?.span);
      expect(otel.trace.getSpan(outer?.parent as Context)).toBe(invoke?.span);
      const key = otel.createContextKey('other');
      const extended = parent.setValue(key, 'value');
      expect([extended.getValue(key), parent.getValue(key), otel.trace.getSpan(extended)]).toEqual(['value', undefined, outer?.span]);
      const without = extended.deleteValue(key);
      expect([without.getValue(key), extended.getValue(key), otel.trace.getSpan(without)]).toEqual([undefined, 'value', outer?.span]);
    });
  });

  describe('when nothing records', () => {
    it('starts and ends one non-recording span per invoke and wraps no layer', async () => {
      const calls: string[] = [];
      const nonRecording = otel.trace.wrapSpanContext(otel.INVALID_SPAN_CONTEXT);
      const span = { ...nonRecording, isRecording: () => false, end: () => void calls.push('end') } as unknown as Span;
      const tracer = { startSpan: (name: string) => (calls.push(`start ${name}`), span) } as unknown as Tracer;
      const run = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[chunk('a'), answer('b')]]),
        handlers: [[ModelStage.Wrap, retry()]],
        instrument: [tracing({ tracer })],
      });
      expect(run.events).toEqual([chunk('a'), answer('b')]);
      expect(calls).toEqual(['start model', 'end']);
    });

    it('returns no observer for the invoke, so no layer is wrapped', () => {
      const instrumentation: Instrumentation = tracing({ api: otel });
      expect(instrumentation.invoke({ stage: ModelStage, context, signal: undefined })).toBeUndefined();
    });

    it('runs the stage unchanged', async () => {
      const run = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[chunk('a'), answer('b')]]),
        instrument: [tracing({ api: otel })],
      });
      expect(run.events).toEqual([chunk('a'), answer('b')]);
    });
  });

  describe('what it returns', () => {
    it('is a frozen instrumentation named tracing, for registry.instrument', () => {
      const instrumentation = tracing({ api: otel });
      expect([instrumentation.name, typeof instrumentation.invoke, Object.isFrozen(instrumentation)]).toEqual([
        'tracing',
        'function',
        true,
      ]);
    });
  });

  describe('options', () => {
    it.each([null, {}, { trace: {} }, { trace: otel.trace, context: { active: () => otel.ROOT_CONTEXT } }])(
      'rejects api %j with ERR_INVALID_OPTIONS',
      (api) => {
        expect(() => tracing({ api } as never)).toThrow(
          expect.objectContaining({
            code: 'ERR_INVALID_OPTIONS',
            handler: 'tracing',
            message: expect.stringContaining('options.api must be the OpenTelemetry API'),
          }),
        );
      },
    );

    it.each([{}, { now: () => 0 }, { api: undefined, tracer: undefined }])(
      'rejects %j, which gives neither tracer nor api, saying what to pass',
      (options) => {
        expect(() => tracing(options as never)).toThrow(
          expect.objectContaining({
            code: 'ERR_INVALID_OPTIONS',
            phase: 'register',
            handler: 'tracing',
            message: expect.stringContaining('pass options.tracer (an OpenTelemetry Tracer'),
          }),
        );
      },
    );

    it.each([undefined, null, 'otel'])('rejects options %j with ERR_INVALID_OPTIONS', (options) => {
      expect(() => tracing(options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'tracing', message: expect.stringContaining('options must be') }),
      );
    });

    it('accepts a tracer alone', () => {
      const { tracer } = recordingTracer();
      expect(tracing({ tracer }).name).toBe('tracing');
    });

    it.each([
      { options: { api: otel, tracer: {} }, problem: 'options.tracer' },
      { options: { tracer: {} }, problem: 'options.tracer' },
      { options: { tracer: null }, problem: 'options.tracer' },
      { options: { api: otel, now: 'performance' }, problem: 'options.now' },
    ])('rejects bad $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      expect(() => tracing(options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'tracing', message: expect.stringContaining(problem) }),
      );
    });
  });
});
