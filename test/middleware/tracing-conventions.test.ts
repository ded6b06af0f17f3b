import * as otel from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry } from '../../src/core/index';
import { tracing, type TracingConventions } from '../../src/middleware/index';
import { TextStage } from './fixtures';
import { recordingTracer, tree } from './recording-tracer';

/** A lookup's answer: a hit count, and the error of a backend that answered with one. */
interface LookupResult {
  readonly hits: number;
  readonly error?: unknown;
}

const LookupStage = createStage<{ readonly query: string }, LookupResult>('lookup');

/** Conventions for the lookup stage; `ended` gets each outcome's status and the span's status code when `end` runs. */
function lookupSpans(ended: string[]): TracingConventions {
  return {
    invokeSpan: ({ stage, context }) => {
      if (stage !== LookupStage) return undefined;
      const { query } = context as { readonly query: string };
      return {
        name: `lookup ${query}`,
        kind: otel.SpanKind.CLIENT,
        attributes: { 'lookup.query': query, 'lookup.index': undefined },
        end: (span, outcome, fail) => {
          ended.push(`${outcome.status} ${(span as unknown as ReadableSpan).status.code}`);
          if (outcome.status !== 'success') return;
          const result = outcome.result as LookupResult;
          span.setAttribute('lookup.hits', result.hits);
          if (result.error !== undefined) fail(span, result.error);
        },
      };
    },
  };
}

/** Runs one lookup traced with `conventions`; returns its spans as they ended, with kind and exception count. */
async function tracedLookup(conventions: readonly TracingConventions[], terminal: () => AsyncGenerator<LookupResult, void, undefined>) {
  const { exporter, tracer } = recordingTracer();
  const registry = new MiddlewareRegistry();
  registry.instrument(tracing({ tracer, conventions }));
  const outcome = await registry.run(LookupStage, { query: 'cats' }, terminal).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  const spans = exporter.getFinishedSpans();
  return {
    outcome,
    spans: tree(spans).map((span, index) => ({ ...span, kind: spans[index]?.kind, exceptions: spans[index]?.events.length })),
  };
}

/** The library's attributes of the lookup terminal span (MW-093), whatever the clock says. */
const terminalSpan = (status: otel.SpanStatusCode, exceptions: number) => ({
  name: 'lookup terminal',
  parent: 'lookup cats',
  attributes: expect.objectContaining({ 'staged.stage': 'lookup', 'staged.phase': 'terminal', 'staged.handler': 'terminal' }) as unknown,
  status,
  kind: otel.SpanKind.INTERNAL,
  exceptions,
});

describe('tracing', () => {
  describe('with span conventions that know a stage', () => {
    it('names, kinds and attributes its invoke span, sets what the outcome tells, and leaves its layer spans alone', async () => {
      const ended: string[] = [];
      const { outcome, spans } = await tracedLookup([lookupSpans(ended)], async function* found() {
        yield { hits: 3 };
      });
      expect([outcome, ended, spans]).toEqual([
        { result: { hits: 3 } },
        [`success ${otel.SpanStatusCode.UNSET}`],
        [
          terminalSpan(otel.SpanStatusCode.UNSET, 0),
          {
            name: 'lookup cats',
            parent: undefined,
            attributes: { 'staged.stage': 'lookup', 'lookup.query': 'cats', 'lookup.hits': 3 },
            status: otel.SpanStatusCode.UNSET,
            kind: otel.SpanKind.CLIENT,
            exceptions: 0,
          },
        ],
      ]);
    });

    it('runs end after an error outcome marked the span failed, the exception recorded once, where it was thrown', async () => {
      const ended: string[] = [];
      const down = new Error('index down');
      const { outcome, spans } = await tracedLookup([lookupSpans(ended)], async function* failing() {
        yield* [];
        throw down;
      });
      expect([outcome, ended, spans.map(({ name, status, exceptions }) => [name, status, exceptions])]).toEqual([
        { error: down },
        [`error ${otel.SpanStatusCode.ERROR}`],
        [
          ['lookup terminal', otel.SpanStatusCode.ERROR, 1],
          ['lookup cats', otel.SpanStatusCode.ERROR, 0],
        ],
      ]);
    });

    it("marks the span failed through end's fail when the result carries an error the core does not see", async () => {
      const ended: string[] = [];
      const partial = new Error('one shard failed');
      const { outcome, spans } = await tracedLookup([lookupSpans(ended)], async function* degraded() {
        yield { hits: 1, error: partial };
      });
      expect([outcome, ended, spans.map(({ name, status, exceptions }) => [name, status, exceptions])]).toEqual([
        { result: { hits: 1, error: partial } },
        [`success ${otel.SpanStatusCode.UNSET}`],
        [
          ['lookup terminal', otel.SpanStatusCode.UNSET, 0],
          ['lookup cats', otel.SpanStatusCode.ERROR, 1],
        ],
      ]);
    });
  });

  describe('with several conventions', () => {
    it('asks them in order, the first answer counting, and names a stage none knows after the stage', async () => {
      const { exporter, tracer } = recordingTracer();
      const registry = new MiddlewareRegistry();
      const everything: TracingConventions = {
        invokeSpan: ({ stage }) => (stage === TextStage ? { name: `any ${stage.name}` } : undefined),
      };
      registry.instrument(tracing({ tracer, conventions: [lookupSpans([]), everything] }));
      const OtherStage = createStage<{ readonly prompt: string }, string>('other');
      await registry.run(LookupStage, { query: 'dogs' }, async function* found() {
        yield { hits: 0 };
      });
      await registry.run(TextStage, { prompt: 'hi' }, async function* text() {
        yield 'hello';
      });
      await registry.run(OtherStage, { prompt: 'hi' }, async function* text() {
        yield 'hello';
      });
      const invokeSpans = exporter.getFinishedSpans().filter((span) => span.attributes['staged.phase'] === undefined);
      expect(invokeSpans.map((span) => span.name)).toEqual(['lookup dogs', 'any text', 'other']);
    });
  });

  describe('with conventions that open and join runs', () => {
    interface RunContext {
      readonly run: object;
    }
    const OuterStage = createStage<RunContext, string>('outer');
    const InnerStage = createStage<RunContext, string>('inner');
    const runs: TracingConventions = {
      opensRun: (layer) => (layer.stage === OuterStage && layer.kind === 'terminal' ? (layer.context as RunContext).run : undefined),
      joinsRun: (info) => (info.stage === InnerStage ? (info.context as RunContext).run : undefined),
    };

    /** The parent of each invoke span of one outer run whose terminal makes an inner invoke of its run and one of another run. */
    async function invokeParents(conventions: readonly TracingConventions[]): Promise<unknown[]> {
      const { exporter, tracer } = recordingTracer();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer, conventions }));
      const inner = async function* inner(): AsyncGenerator<string, void, undefined> {
        yield 'inner';
      };
      const run = {};
      await registry.run(OuterStage, { run }, async function* outer() {
        yield `${await registry.run(InnerStage, { run }, inner)} ${await registry.run(InnerStage, { run: {} }, inner)}`;
      });
      return tree(exporter.getFinishedSpans())
        .filter((span) => span.attributes['staged.phase'] === undefined)
        .map(({ name, parent }) => [name, parent]);
    }

    it('nests the invokes that join a run under the open entry that opened it, with the tracer alone', async () => {
      expect(await invokeParents([runs])).toEqual([
        ['inner', 'outer terminal'],
        ['inner', undefined],
        ['outer', undefined],
      ]);
    });

    it('without them, nests no invoke under another when no context manager tells the parent', async () => {
      expect(await invokeParents([])).toEqual([
        ['inner', undefined],
        ['inner', undefined],
        ['outer', undefined],
      ]);
    });
  });

  describe('options.conventions', () => {
    it.each([
      { conventions: 'genAiSpans', problem: 'options.conventions must be an array' },
      { conventions: { invokeSpan: () => undefined }, problem: 'options.conventions must be an array' },
      { conventions: [null], problem: 'options.conventions[0] must be an object' },
      { conventions: [{}, { invokeSpan: 'chat' }], problem: 'options.conventions[1].invokeSpan must be a function' },
      { conventions: [{ opensRun: 1 }], problem: 'options.conventions[0].opensRun must be a function' },
      { conventions: [{ joinsRun: {} }], problem: 'options.conventions[0].joinsRun must be a function' },
    ])('rejects $conventions with ERR_INVALID_OPTIONS saying $problem', ({ conventions, problem }) => {
      const { tracer } = recordingTracer();
      expect(() => tracing({ tracer, conventions } as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          phase: 'register',
          handler: 'tracing',
          message: expect.stringContaining(problem),
        }),
      );
    });

    it('is read once: changing the array afterwards changes nothing', async () => {
      const { exporter, tracer } = recordingTracer();
      const conventions: TracingConventions[] = [];
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer, conventions }));
      conventions.push(lookupSpans([]));
      await registry.run(LookupStage, { query: 'cats' }, async function* found() {
        yield { hits: 1 };
      });
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['lookup terminal', 'lookup']);
    });
  });
});
