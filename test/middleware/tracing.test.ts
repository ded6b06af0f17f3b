import * as otel from '@opentelemetry/api';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, type Instrumentation, type WrapHandler } from '../../src/index';
import { retry, tracing, TRACING_ATTRIBUTES as A } from '../../src/middleware/index';
import { runStage, scriptedTerminal, waits } from '../../src/testing/index';
import { ModelStage, answer, chunk, settle, terminalFailingOnClose, type ModelContext, type ModelEvent } from './fixtures';

const context: ModelContext = { prompt: 'hi' };

function recordingTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

/** A span reduced to what the tests compare: name, parent name, and the attributes. */
function tree(spans: readonly ReadableSpan[]) {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  return spans.map((span) => ({
    name: span.name,
    parent: span.parentSpanContext === undefined ? undefined : byId.get(span.parentSpanContext.spanId)?.name,
    attributes: span.attributes,
    status: span.status.code,
  }));
}

/** The two ways of handing tracing a tracer: spans must nest the same either way. */
const givenTracer = [
  { given: 'api and tracer', options: (tracer: Tracer) => ({ api: otel, tracer }) },
  { given: 'tracer only', options: (tracer: Tracer) => ({ tracer }) },
];

describe('tracing', () => {
  describe('when a tracer records', () => {
    it.each(givenTracer)(
      'nests one span per layer entry like the onion, with attempts and self times from the clock ($given)',
      async ({ options }) => {
        const { exporter, tracer } = recordingTracer();
        let clock = 0;
        // Each layer moves the fake clock while it runs, so every self time is known exactly.
        const outer: WrapHandler<ModelContext, ModelEvent> = async function* outer(value, next) {
          clock += 3;
          yield* next(value);
        };
        const overloaded = new Error('overloaded');
        let call = 0;
        const terminal = async function* terminal(): AsyncGenerator<ModelEvent, void, undefined> {
          clock += 10;
          call++;
          if (call === 1) throw overloaded;
          yield chunk('a');
          clock += 5;
          yield answer('ok');
        };
        const run = await runStage(ModelStage, {
          context,
          terminal,
          handlers: [
            [ModelStage.Wrap, outer],
            [ModelStage.Wrap, retry({ backoff: () => 0 })],
          ],
          instrument: [tracing({ ...options(tracer), now: () => clock })],
        });
        expect(run.result).toEqual(answer('ok'));
        const spans = tree(exporter.getFinishedSpans());
        // Spans finish innermost first; the invoke span last.
        expect(spans).toEqual([
          {
            name: 'model terminal',
            parent: 'model retry',
            attributes: {
              [A.stage]: 'model',
              [A.phase]: 'terminal',
              [A.handler]: 'terminal',
              [A.order]: 0,
              [A.position]: 2,
              [A.attempt]: 1,
              [A.events]: 0,
              [A.activeMs]: 10,
              [A.selfMs]: 10,
            },
            status: otel.SpanStatusCode.ERROR,
          },
          {
            name: 'model terminal',
            parent: 'model retry',
            attributes: {
              [A.stage]: 'model',
              [A.phase]: 'terminal',
              [A.handler]: 'terminal',
              [A.order]: 0,
              [A.position]: 2,
              [A.attempt]: 2,
              [A.events]: 2,
              [A.activeMs]: 15,
              [A.selfMs]: 15,
            },
            status: otel.SpanStatusCode.UNSET,
          },
          {
            name: 'model retry',
            parent: 'model outer',
            attributes: {
              [A.stage]: 'model',
              [A.phase]: 'wrap',
              [A.handler]: 'retry',
              [A.order]: 0,
              [A.position]: 1,
              [A.attempt]: 1,
              [A.events]: 2,
              [A.activeMs]: 25,
              [A.selfMs]: 0,
            },
            status: otel.SpanStatusCode.UNSET,
          },
          {
            name: 'model outer',
            parent: 'model',
            attributes: {
              [A.stage]: 'model',
              [A.phase]: 'wrap',
              [A.handler]: 'outer',
              [A.order]: 0,
              [A.position]: 0,
              [A.attempt]: 1,
              [A.events]: 2,
              [A.activeMs]: 28,
              [A.selfMs]: 3,
            },
            status: otel.SpanStatusCode.UNSET,
          },
          { name: 'model', parent: undefined, attributes: { [A.stage]: 'model' }, status: otel.SpanStatusCode.UNSET },
        ]);
        const failed = exporter.getFinishedSpans()[0] as ReadableSpan;
        expect(failed.events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([['exception', 'overloaded']]);
      },
    );

    it('keeps self time within active time and a child within its parent on the real clock', async () => {
      const { exporter, tracer } = recordingTracer();
      const terminal = scriptedTerminal([[chunk('a'), waits(5), answer('b')]]);
      await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, retry()]],
        instrument: [tracing({ api: otel, tracer })],
      });
      const [terminalSpan, retrySpan] = exporter.getFinishedSpans();
      const active = (span: ReadableSpan | undefined) => span?.attributes[A.activeMs] as number;
      const self = (span: ReadableSpan | undefined) => span?.attributes[A.selfMs] as number;
      expect(active(terminalSpan)).toBeGreaterThanOrEqual(4);
      expect(self(terminalSpan)).toBeLessThanOrEqual(active(terminalSpan));
      expect(active(terminalSpan)).toBeLessThanOrEqual(active(retrySpan));
      expect(self(retrySpan)).toBeLessThanOrEqual(active(retrySpan) - active(terminalSpan) + 1e-9);
    });

    it('marks the invoke span failed with the error, and records Input and Output handlers as span events', async () => {
      const { exporter, tracer } = recordingTracer();
      const boom = new Error('boom');
      const run = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('x')]]),
        handlers: [
          [
            ModelStage.Input,
            function tag(value: ModelContext) {
              return value;
            },
          ],
          [
            ModelStage.Output,
            function explode(): never {
              throw boom;
            },
          ],
        ],
        instrument: [tracing({ api: otel, tracer })],
      });
      expect(run.error).toBe(boom);
      const root = exporter.getFinishedSpans().find((span) => span.name === 'model') as ReadableSpan;
      expect(root.status).toEqual({ code: otel.SpanStatusCode.ERROR, message: 'boom' });
      expect(root.events.map((event) => [event.name, event.attributes])).toEqual([
        ['input tag', { [A.phase]: 'input', [A.handler]: 'tag', [A.order]: 0 }],
        ['output explode', { [A.phase]: 'output', [A.handler]: 'explode', [A.order]: 0, 'exception.message': 'boom' }],
        ['exception', expect.objectContaining({ 'exception.message': 'boom' })],
      ]);
    });

    it('records a handler that throws undefined as failed', async () => {
      const { exporter, tracer } = recordingTracer();
      await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('x')]]),
        handlers: [
          [
            ModelStage.Input,
            function nothing(): never {
              throw undefined;
            },
          ],
        ],
        instrument: [tracing({ api: otel, tracer })],
      });
      const root = exporter.getFinishedSpans().find((span) => span.name === 'model') as ReadableSpan;
      expect(root.events[0]?.attributes).toEqual({
        [A.phase]: 'input',
        [A.handler]: 'nothing',
        [A.order]: 0,
        'exception.message': 'undefined',
      });
    });
  });

  describe('when a handler runs two inner chains at once', () => {
    it.each(givenTracer)('parents each terminal span under the layer entry that called next() ($given)', async ({ options }) => {
      const { exporter, tracer } = recordingTracer();
      let releaseFirst = (): void => undefined;
      const firstMayGoOn = new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      const hedge: WrapHandler<ModelContext, ModelEvent> = async function* hedge(value, next) {
        const first = next({ prompt: 'one' });
        const second = next({ prompt: 'two' });
        // The first inner entry opens and waits; the second opens and enters the terminal;
        // only then does the first enter the terminal, while both are open.
        const fromFirst = first.next();
        const fromSecond = await second.next();
        releaseFirst();
        await fromFirst;
        await first.return();
        await second.return();
        if (fromSecond.done !== true) yield fromSecond.value;
        yield answer(value.prompt);
      };
      const inner: WrapHandler<ModelContext, ModelEvent> = async function* inner(value, next) {
        if (value.prompt === 'one') await firstMayGoOn;
        yield* next(value);
      };
      const terminal = async function* terminal(value: ModelContext): AsyncGenerator<ModelEvent, void, undefined> {
        yield chunk(value.prompt);
        yield answer(value.prompt);
      };
      await runStage(ModelStage, {
        context,
        terminal,
        handlers: [
          [ModelStage.Wrap, hedge],
          [ModelStage.Wrap, inner],
        ],
        instrument: [tracing(options(tracer))],
      });
      const spans = exporter.getFinishedSpans();
      const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
      const attempt = (span: ReadableSpan | undefined): string => `${span?.name ?? 'none'}#${String(span?.attributes[A.attempt])}`;
      const edges = spans
        .filter((span) => span.attributes[A.phase] === 'terminal')
        .map((span) => `${attempt(span)} <- ${attempt(byId.get(span.parentSpanContext?.spanId ?? ''))}`)
        .sort();
      expect(edges).toEqual(['model terminal#1 <- model inner#2', 'model terminal#2 <- model inner#1']);
    });
  });

  describe('under abort and early close', () => {
    it('ends every span, marking a layer closed by the invoke', async () => {
      const { exporter, tracer } = recordingTracer();
      const controller = new AbortController();
      const running = runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[chunk('a'), waits(Infinity)]]),
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, retry()]],
        instrument: [tracing({ api: otel, tracer })],
      });
      await settle();
      controller.abort('stop');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      const spans = tree(exporter.getFinishedSpans());
      expect(spans.map((span) => [span.name, span.parent, span.status])).toEqual([
        ['model terminal', 'model retry', otel.SpanStatusCode.ERROR],
        ['model retry', 'model', otel.SpanStatusCode.ERROR],
        ['model', undefined, otel.SpanStatusCode.ERROR],
      ]);
    });

    it('marks layers and the invoke closed when the consumer stops', async () => {
      const { exporter, tracer } = recordingTracer();
      const { MiddlewareRegistry } = await import('../../src/index');
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ api: otel, tracer }));
      registry.add(ModelStage.Wrap, retry({ stream: 'live' }));
      const events = registry.invoke(ModelStage, context, scriptedTerminal([[chunk('a'), answer('b')]]));
      await events.next();
      await events.return();
      expect(exporter.getFinishedSpans().map((span) => [span.name, span.attributes[A.closed]])).toEqual([
        ['model terminal', true],
        ['model retry', true],
        ['model', true],
      ]);
    });
  });

  describe('when closing a layer throws', () => {
    it('records the error on that layer span and passes it on', async () => {
      const { exporter, tracer } = recordingTracer();
      const { MiddlewareRegistry } = await import('../../src/index');
      const cleanupFailed = new Error('cleanup failed');
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ api: otel, tracer }));
      const events = registry.invoke(ModelStage, context, terminalFailingOnClose(cleanupFailed));
      await events.next();
      await expect(events.return()).rejects.toBe(cleanupFailed);
      const [layer] = exporter.getFinishedSpans();
      expect([layer?.name, layer?.status, layer?.attributes[A.closed]]).toEqual([
        'model terminal',
        { code: otel.SpanStatusCode.ERROR, message: 'cleanup failed' },
        true,
      ]);
    });
  });

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
