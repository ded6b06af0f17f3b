import * as otel from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { type WrapHandler } from '../../src/core/index';
import { retry, tracing, TRACING_ATTRIBUTES as A } from '../../src/middleware/index';
import { runStage, scriptedTerminal, waits } from '../../src/testing/index';
import { ModelStage, answer, chunk, type ModelContext, type ModelEvent } from './fixtures';
import { recordingTracer, tree } from './recording-tracer';

const context: ModelContext = { prompt: 'hi' };

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
});
