import * as otel from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { retry, tracing, TRACING_ATTRIBUTES as A } from '../../src/middleware/index';
import { runStage, scriptedTerminal, waits } from '../../src/testing/index';
import { ModelStage, answer, chunk, settle, terminalFailingOnClose, type ModelContext } from './fixtures';
import { recordingTracer, tree } from './recording-tracer';

const context: ModelContext = { prompt: 'hi' };

describe('tracing', () => {
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
      const { MiddlewareRegistry } = await import('../../src/core/index');
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
      const { MiddlewareRegistry } = await import('../../src/core/index');
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
});
