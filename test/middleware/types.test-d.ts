import { describe, expectTypeOf, it } from 'vitest';
import * as otel from '@opentelemetry/api';
import { z } from 'zod';
import { MiddlewareRegistry, type InvokeInfo, type InvokeOutcome } from '../../src/core/index';
import {
  cache,
  fallback,
  rateLimit,
  regenerate,
  retry,
  timeout,
  tracing,
  validate,
  type AttemptBoundaryEvent,
  type AttemptBoundaryInfo,
  type InvokeSpan,
  type TracingConventions,
  type TracingSpan,
} from '../../src/middleware/index';
import { scriptedTerminal, throws } from '../../src/testing/index';
import { ModelStage, TextStage, type ModelContext, type ModelEvent } from './fixtures';

const registry = new MiddlewareRegistry();

describe('retry', () => {
  it('fits any stage in commit mode without type arguments', () => {
    registry.add(ModelStage.Wrap, retry());
    registry.add(TextStage.Wrap, retry({ attempts: 2, stream: 'commit' }));
  });

  it('fits live mode only on stages whose events admit the boundary event', () => {
    registry.add(ModelStage.Wrap, retry({ stream: 'live' }));
    // @ts-expect-error: the events of TextStage are strings, which do not admit AttemptBoundaryEvent
    registry.add(TextStage.Wrap, retry({ stream: 'live' }));
  });

  it('takes the boundary type from a boundary factory', () => {
    registry.add(
      TextStage.Wrap,
      retry({
        stream: {
          mode: 'live',
          boundary: (info) => {
            expectTypeOf(info).toEqualTypeOf<AttemptBoundaryInfo>();
            return `attempt ${info.nextAttempt}`;
          },
        },
      }),
    );
    // @ts-expect-error: a number boundary does not fit a stage of string events
    registry.add(TextStage.Wrap, retry({ stream: { mode: 'live', boundary: () => 42 } }));
  });
});

describe('fallback', () => {
  it('types the alternatives from the stage context', () => {
    registry.add(
      ModelStage.Wrap,
      fallback([
        (context) => {
          expectTypeOf(context).toEqualTypeOf<ModelContext>();
          return { ...context, model: 'small' };
        },
        { prompt: 'fixed' },
      ]),
    );
    // @ts-expect-error: an alternative must be a context of the stage
    registry.add(ModelStage.Wrap, fallback([{ prompt: 42 }]));
  });

  it('fits live mode only where the boundary fits', () => {
    registry.add(ModelStage.Wrap, fallback([{ prompt: 'b' }], { stream: 'live' }));
    // @ts-expect-error: string events do not admit AttemptBoundaryEvent
    registry.add(TextStage.Wrap, fallback([{ prompt: 'b' }], { stream: 'live' }));
  });
});

describe('regenerate', () => {
  it('types check and feedback from the stage', () => {
    registry.add(
      ModelStage.Wrap,
      regenerate({
        check: (result) => {
          expectTypeOf(result).toEqualTypeOf<ModelEvent>();
        },
        feedback: (context, error) => {
          expectTypeOf(context).toEqualTypeOf<ModelContext>();
          expectTypeOf(error).toBeUnknown();
          return context;
        },
      }),
    );
  });

  it('fits live mode only where the boundary fits', () => {
    registry.add(ModelStage.Wrap, regenerate({ check: () => undefined, feedback: (context) => context, stream: 'live' }));
    // @ts-expect-error: string events do not admit AttemptBoundaryEvent
    registry.add(TextStage.Wrap, regenerate({ check: () => undefined, feedback: (context) => context, stream: 'live' }));
  });
});

describe('cache, timeout and rateLimit', () => {
  it('fit any stage; cache types its key from the stage context', () => {
    registry.add(
      ModelStage.Wrap,
      cache({
        key: (context) => {
          expectTypeOf(context).toEqualTypeOf<ModelContext>();
          return context.prompt;
        },
      }),
    );
    registry.add(TextStage.Wrap, timeout(1_000));
    registry.add(TextStage.Wrap, rateLimit({ minIntervalMs: 10 }));
    // @ts-expect-error: the key must be a string or undefined
    registry.add(TextStage.Wrap, cache({ key: () => 42 }));
  });
});

describe('rateLimit with a key function', () => {
  it('types the key from the stage context, locally and with a shared limiter', () => {
    registry.add(
      ModelStage.Wrap,
      rateLimit({
        tokensPerInterval: 5,
        intervalMs: 1_000,
        maxKeys: 100,
        key: (context) => {
          expectTypeOf(context).toEqualTypeOf<ModelContext>();
          return context.prompt;
        },
      }),
    );
    const limiter = { consume: () => Promise.resolve({}) };
    registry.add(ModelStage.Wrap, rateLimit({ limiter, key: (context) => context.prompt }));
    registry.add(ModelStage.Wrap, rateLimit({ limiter, key: 'provider' }));
  });

  it('refuses a key that is not a string, and a string key without a limiter', () => {
    // @ts-expect-error: the key function must return a string
    registry.add(ModelStage.Wrap, rateLimit({ minIntervalMs: 10, key: () => 42 }));
    // @ts-expect-error: locally the key is a function of the context
    registry.add(ModelStage.Wrap, rateLimit({ minIntervalMs: 10, key: 'provider' }));
  });
});

describe('tracing', () => {
  it('takes a tracer, the API, or both', () => {
    const tracer = otel.trace.getTracer('types');
    registry.instrument(tracing({ tracer }));
    registry.instrument(tracing({ api: otel }));
    registry.instrument(tracing({ api: otel, tracer, now: () => 0 }));
    // @ts-expect-error: a tracer name is not a Tracer
    tracing({ tracer: 'my-app' });
  });

  it('takes a list of span conventions, typed from the infos the core gives instrumentations', () => {
    const conventions: TracingConventions = {
      invokeSpan: (info) => {
        expectTypeOf(info).toEqualTypeOf<InvokeInfo>();
        return {
          name: info.stage.name,
          kind: otel.SpanKind.CLIENT,
          end: (span, outcome, fail) => {
            fail(span, outcome);
          },
        };
      },
      opensRun: (layer) => (layer.kind === 'terminal' ? layer : undefined),
      joinsRun: (info) => info.signal,
    };
    registry.instrument(tracing({ api: otel, conventions: [conventions, {}] }));
    expectTypeOf<InvokeSpan['end']>().toEqualTypeOf<
      ((span: TracingSpan, outcome: InvokeOutcome, fail: (span: TracingSpan, error: unknown) => void) => void) | undefined
    >();
    // @ts-expect-error: a run is an object, never a string
    const byName: TracingConventions = { joinsRun: (info) => info.stage.name };
    // @ts-expect-error: conventions are a list, first conventions first
    tracing({ api: otel, conventions });
    expectTypeOf(byName).toEqualTypeOf<TracingConventions>();
  });
});

describe('validate', () => {
  it('registers on a stage whose types the schema outputs fit', () => {
    registry.use(
      validate(ModelStage, {
        context: z.object({ prompt: z.string() }),
        result: z.object({ type: z.literal('result'), text: z.string() }),
      }),
    );
    // @ts-expect-error: the schema's output lacks `prompt`, so it does not fit the stage's context
    registry.use(validate(ModelStage, { context: z.object({ model: z.string() }) }));
    // @ts-expect-error: the schema's output is a number, not the stage's result
    registry.use(validate(TextStage, { result: z.number() }));
  });
});

describe('scriptedTerminal', () => {
  it('yields the events of the script, without its actions', () => {
    const terminal = scriptedTerminal([['a', throws(new Error('x'))], ['b']]);
    expectTypeOf(terminal({}, { stage: TextStage, signal: new AbortController().signal, state: undefined })).toEqualTypeOf<
      AsyncGenerator<'a' | 'b', void, undefined>
    >();
    void registry.run(TextStage, { prompt: '' }, terminal);
  });

  it('fits a stage only when its events do', () => {
    const boundary: AttemptBoundaryEvent = {
      type: 'attempt-boundary',
      handler: 'retry',
      failedAttempt: 1,
      nextAttempt: 2,
      error: undefined,
    };
    void registry.run(ModelStage, { prompt: '' }, scriptedTerminal([[boundary]]));
    // @ts-expect-error: a number is not an event of TextStage
    void registry.run(TextStage, { prompt: '' }, scriptedTerminal([[42]]));
  });
});
