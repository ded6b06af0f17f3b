/**
 * Every misuse a user can make, table-driven: each must end in a
 * MiddlewareError with its code, naming the stage and the handler, or in the
 * user's own error object unchanged, and never write anything.
 *
 * The handlers below are deliberately ill-typed; `as never` lets them past
 * the compiler to reach the run-time checks that JavaScript callers rely on.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createStage, MiddlewareError, MiddlewareRegistry, type MiddlewareStage, type Next } from '../../src/index';
import { collect } from './fixtures';

type Stage = MiddlewareStage<{ topic: string }, string, string>;

interface Context {
  readonly registry: MiddlewareRegistry;
  readonly stage: Stage;
  readonly state: { get: () => { turns: number }; set: (next: { turns: number }) => void };
  readonly writes: unknown[];
  readonly userError: Error;
  readonly invoke: (terminal?: unknown, options?: Record<string, unknown>) => AsyncGenerator<string, void, undefined>;
}

function context(stage: Stage = createStage<{ topic: string }, string, string>('misuse')): Context {
  const registry = new MiddlewareRegistry({ onWarning: () => undefined });
  const writes: unknown[] = [];
  const state = { get: () => ({ turns: 0 }), set: (next: { turns: number }) => void writes.push(next) };
  const invoke = (terminal: unknown = good, options: Record<string, unknown> = {}) =>
    registry.invoke(stage, { topic: 'x' }, terminal as never, { state, ...options });
  return { registry, stage, state, writes, userError: new Error('user code failed'), invoke };
}

async function* good(): AsyncGenerator<string, void, undefined> {
  yield 'partial';
  yield 'done';
}

const pass = async function* pass(_context: unknown, next: Next<unknown, string>) {
  yield* next();
};

/** Runs an attempt to its end: a thrown error, a rejection, or the error of draining the generator it returns. */
async function capture(attempt: () => unknown): Promise<unknown> {
  try {
    const produced = attempt();
    if (typeof produced === 'object' && produced !== null && Symbol.asyncIterator in produced) {
      const outcome = await collect(produced as AsyncIterable<unknown>);
      return outcome.error;
    }
    await produced;
    return undefined;
  } catch (error) {
    return error;
  }
}

interface Row {
  readonly label: string;
  readonly setup?: (context: Context) => void;
  readonly attempt: (context: Context) => unknown;
  /** A MiddlewareError code and the handler it must name, or the user's error. */
  readonly expected: { readonly code: string; readonly handler: string | undefined } | 'user error';
  /** What the message must contain when it is not the stage and handler names. */
  readonly message?: readonly string[];
  /** The error's stage field when it is not the stage under test. */
  readonly stage?: string | undefined;
}

const rows: Row[] = [
  // Registration.
  {
    label: 'a number as a Wrap handler',
    attempt: ({ registry, stage }) => registry.add(stage.Wrap, 42 as never, { name: 'numeric' }),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'numeric' },
  },
  {
    label: 'null as an Input handler',
    attempt: ({ registry, stage }) => registry.add(stage.Input, null as never, { name: 'nothing' }),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'nothing' },
  },
  {
    label: 'an object as an Output handler',
    attempt: ({ registry, stage }) => registry.add(stage.Output, {} as never, { name: 'object' }),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'object' },
  },
  {
    label: 'a spread copy of a stage as target',
    attempt: ({ registry, stage }) => registry.add({ ...stage } as never, pass as never),
    expected: { code: 'ERR_UNKNOWN_PHASE', handler: undefined },
  },
  {
    label: 'a forged phase token as target',
    attempt: ({ registry, stage }) => registry.add({ phase: 'wrap', stage } as never, pass as never),
    expected: { code: 'ERR_UNKNOWN_PHASE', handler: undefined },
  },
  {
    label: 'a string as target',
    attempt: ({ registry }) => registry.add('misuse.Wrap' as never, pass as never),
    expected: { code: 'ERR_UNKNOWN_PHASE', handler: undefined },
  },
  {
    label: 'a non-finite order',
    attempt: ({ registry, stage }) => registry.add(stage.Wrap, pass as never, { name: 'unordered', order: Number.NaN }),
    expected: { code: 'ERR_INVALID_OPTIONS', handler: 'unordered' },
  },
  {
    label: 'a next policy on an Input handler',
    attempt: ({ registry, stage }) => registry.add(stage.Input, ((value: unknown) => value) as never, { name: 'policed', next: 'once' }),
    expected: { code: 'ERR_INVALID_OPTIONS', handler: 'policed' },
  },
  {
    label: 'replace without an id',
    attempt: ({ registry, stage }) => registry.add(stage.Wrap, pass as never, { name: 'replacing', replace: true }),
    expected: { code: 'ERR_INVALID_OPTIONS', handler: 'replacing' },
  },
  {
    label: 'a duplicate id',
    setup: ({ registry, stage }) => void registry.add(stage.Wrap, pass as never, { name: 'first', id: 'same' }),
    attempt: ({ registry, stage }) => registry.add(stage.Wrap, pass as never, { name: 'second', id: 'same' }),
    expected: { code: 'ERR_DUPLICATE_ID', handler: 'second' },
  },
  {
    label: 'an ordering cycle',
    setup: ({ registry, stage }) => void registry.add(stage.Wrap, pass as never, { name: 'a', id: 'a', before: ['b'] }),
    attempt: ({ registry, stage }) => registry.add(stage.Wrap, pass as never, { name: 'b', id: 'b', before: ['a'] }),
    expected: { code: 'ERR_ORDER_CYCLE', handler: 'a' },
    message: ['"misuse"', 'a -> b -> a'],
  },
  {
    label: 'a bundle whose setup throws after registering',
    attempt: (context) =>
      context.registry.use({
        name: 'halfway',
        setup(registrar) {
          registrar.add(context.stage.Wrap, pass as never, { id: 'bundled' });
          throw context.userError;
        },
      }),
    expected: 'user error',
  },
  {
    label: 'an instrumentation without invoke()',
    attempt: ({ registry }) => registry.instrument({ name: 'blind' } as never),
    expected: { code: 'ERR_INVALID_HANDLER', handler: undefined },
    message: ['registry.instrument'],
    stage: undefined,
  },
  {
    label: 'a phase token passed to invoke as the stage',
    attempt: ({ registry, stage }) => registry.invoke(stage.Wrap as never, { topic: 'x' }, good as never),
    expected: { code: 'ERR_UNKNOWN_PHASE', handler: undefined },
    stage: 'misuse',
  },
  {
    label: 'a spread copy of a stage passed to invoke',
    attempt: ({ registry, stage }) => registry.invoke({ ...stage } as never, { topic: 'x' }, good as never),
    expected: { code: 'ERR_UNKNOWN_PHASE', handler: undefined },
  },
  {
    label: 'an empty stage name',
    attempt: () => createStage(''),
    expected: { code: 'ERR_INVALID_STAGE', handler: undefined },
    message: ['createStage'],
    stage: '',
  },
  {
    label: "an id that closes a cycle through other handlers' constraints",
    setup: ({ registry, stage }) => {
      registry.add(stage.Wrap, pass as never, { name: 'a', id: 'a', before: ['b'] });
      registry.add(stage.Wrap, pass as never, { name: 'c', id: 'c', after: ['b'], before: ['a'] });
    },
    attempt: ({ registry, stage }) => registry.add(stage.Wrap, pass as never, { name: 'b', id: 'b' }),
    expected: { code: 'ERR_ORDER_CYCLE', handler: 'a' },
    message: ['"misuse"', 'a -> b -> c -> a'],
  },
  // Wrap handlers of the wrong shape.
  {
    label: 'a Wrap handler written as a plain async function',
    setup: ({ registry, stage }) => void registry.add(stage.Wrap, (async () => 'value') as never, { name: 'plainAsync' }),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'plainAsync' },
  },
  {
    label: 'a Wrap handler written as a sync generator',
    setup: ({ registry, stage }) =>
      void registry.add(
        stage.Wrap,
        function* syncGenerator() {
          yield 'sync';
        } as never,
        { name: 'syncGenerator' },
      ),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'syncGenerator' },
  },
  {
    label: 'a Wrap handler returning an array',
    setup: ({ registry, stage }) => void registry.add(stage.Wrap, (() => ['a', 'b']) as never, { name: 'arrayReturning' }),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'arrayReturning' },
  },
  {
    label: 'a Wrap handler throwing before returning anything',
    setup: (context) =>
      void context.registry.add(context.stage.Wrap, (() => {
        throw context.userError;
      }) as never),
    attempt: ({ invoke }) => invoke(),
    expected: 'user error',
  },
  {
    label: "a Wrap handler calling next() twice under next: 'once'",
    setup: ({ registry, stage }) =>
      void registry.add(
        stage.Wrap,
        async function* twice(_context, next) {
          yield* next();
          yield* next();
        },
        { name: 'twice', next: 'once' },
      ),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_NEXT_POLICY', handler: 'twice' },
  },
  {
    label: "a Wrap handler never calling next() under next: 'once'",
    setup: ({ registry, stage }) =>
      void registry.add(
        stage.Wrap,
        async function* never() {
          yield 'own';
        },
        { name: 'never', next: 'once' },
      ),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_NEXT_POLICY', handler: 'never' },
  },
  // Input and Output contracts.
  {
    label: 'an Input handler returning nothing',
    setup: ({ registry, stage }) => void registry.add(stage.Input, (() => undefined) as never, { name: 'forgetful' }),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_INPUT_CONTRACT', handler: 'forgetful' },
  },
  {
    label: 'an Input handler resolving to null',
    setup: ({ registry, stage }) => void registry.add(stage.Input, (async () => null) as never, { name: 'nullish' }),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_INPUT_CONTRACT', handler: 'nullish' },
  },
  {
    label: 'an Input handler throwing',
    setup: (context) =>
      void context.registry.add(context.stage.Input, () => {
        throw context.userError;
      }),
    attempt: ({ invoke }) => invoke(),
    expected: 'user error',
  },
  {
    label: 'an Output handler returning the raw value',
    setup: ({ registry, stage }) =>
      void registry.add(stage.Output, ((result: { value: string }) => result.value) as never, { name: 'raw' }),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_OUTPUT_CONTRACT', handler: 'raw' },
  },
  {
    label: 'an Output handler returning a promise of nothing',
    setup: ({ registry, stage }) => void registry.add(stage.Output, (async () => undefined) as never, { name: 'emptyPromise' }),
    attempt: ({ invoke }) => invoke(),
    expected: { code: 'ERR_OUTPUT_CONTRACT', handler: 'emptyPromise' },
  },
  {
    label: 'an Output handler rejecting',
    setup: (context) => void context.registry.add(context.stage.Output, async () => Promise.reject(context.userError)),
    attempt: ({ invoke }) => invoke(),
    expected: 'user error',
  },
  // Terminals.
  {
    label: 'a terminal that is not a function',
    attempt: ({ invoke }) => invoke('not a function'),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'terminal' },
  },
  {
    label: 'a terminal throwing synchronously before yielding',
    attempt: (context) =>
      context.invoke(() => {
        throw context.userError;
      }),
    expected: 'user error',
  },
  {
    label: 'a terminal returning a string',
    attempt: ({ invoke }) => invoke(() => 'text'),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'terminal' },
  },
  {
    label: 'a terminal returning a promise',
    attempt: ({ invoke }) => invoke(async () => 'text'),
    expected: { code: 'ERR_INVALID_HANDLER', handler: 'terminal' },
  },
  {
    label: 'a terminal yielding undefined',
    attempt: ({ invoke }) =>
      invoke(async function* holes() {
        yield 'a';
        yield undefined;
      }),
    expected: { code: 'ERR_INVALID_EVENT', handler: undefined },
  },
  {
    label: 'a terminal yielding nothing',
    attempt: ({ invoke }) =>
      invoke(async function* silent() {
        // No events at all.
      }),
    expected: { code: 'ERR_NO_RESULT', handler: undefined },
  },
  // Invoke options.
  {
    label: 'a signal that is not an AbortSignal',
    attempt: ({ invoke }) => invoke(good, { signal: { aborted: false } }),
    expected: { code: 'ERR_INVALID_OPTIONS', handler: undefined },
  },
  {
    label: 'a state binding without set',
    attempt: ({ invoke }) => invoke(good, { state: { get: () => ({}) } }),
    expected: { code: 'ERR_INVALID_OPTIONS', handler: undefined },
  },
  {
    label: 'a state that immer cannot draft',
    attempt: ({ invoke }) => invoke(good, { state: { get: () => 5, set: () => undefined } }),
    expected: { code: 'ERR_INVALID_STATE', handler: undefined },
  },
  {
    label: 'a per-invoke registration that is not a tuple',
    attempt: ({ invoke }) => invoke(good, { use: [{ handler: pass }] }),
    expected: { code: 'ERR_INVALID_OPTIONS', handler: undefined },
  },
  {
    label: 'a per-invoke registration for another stage',
    attempt: ({ invoke }) => invoke(good, { use: [[createStage('other').Wrap, pass, { name: 'elsewhere' }]] }),
    expected: { code: 'ERR_INVALID_OPTIONS', handler: 'elsewhere' },
  },
];

describe('MiddlewareRegistry', () => {
  describe('misuse', () => {
    it.each(rows)('$label', async (row) => {
      const setup = context();
      row.setup?.(setup);
      const before = setup.registry.describe(setup.stage);
      const error = await capture(() => row.attempt(setup));
      if (row.expected === 'user error') {
        expect(error).toBe(setup.userError);
      } else {
        expect(MiddlewareError.isInstance(error)).toBe(true);
        const failure = error as MiddlewareError;
        expect({ code: failure.code, handler: failure.handler }).toEqual(row.expected);
        // The message says where: the stage (when one is involved) and the handler.
        const wanted = row.message ?? [
          ...(failure.code === 'ERR_UNKNOWN_PHASE' ? ['createStage()'] : ['"misuse"']),
          ...(row.expected.handler === undefined ? [] : row.expected.handler === 'terminal' ? ['terminal'] : [`"${row.expected.handler}"`]),
        ];
        for (const part of wanted) expect(failure.message).toContain(part);
        expect(failure.stage).toBe('stage' in row ? row.stage : failure.code === 'ERR_UNKNOWN_PHASE' ? undefined : 'misuse');
      }
      // Nothing was written: no state, no registration.
      expect({ writes: setup.writes, chain: setup.registry.describe(setup.stage) }).toEqual({ writes: [], chain: before });
    });

    it.each([
      ['a plain async function', async () => 'value', 'plain async function'],
      [
        'a sync generator',
        function* sync() {
          yield 'x';
        },
        'synchronous iterable',
      ],
      ['an array', () => ['x'], 'synchronous iterable'],
    ])('hints at async function* when a Wrap handler is %s', async (_label, handler, hint) => {
      const setup = context();
      setup.registry.add(setup.stage.Wrap, handler as never, { name: 'shape' });
      const error = (await capture(() => setup.invoke())) as MiddlewareError;
      expect(error.message).toContain(hint);
      expect(error.message).toContain('async function*');
    });
  });

  describe('next() called after the invoke settled', () => {
    it('throws ERR_NEXT_AFTER_SETTLE naming the handler, and starts nothing', async () => {
      const setup = context();
      let kept: (() => AsyncGenerator<string, void, undefined>) | undefined;
      setup.registry.add(
        setup.stage.Wrap,
        async function* keeper(_context, next) {
          kept = next;
          yield* next();
        },
        { name: 'keeper' },
      );
      const terminal = vi.fn(good);
      const outcome = await collect(setup.invoke(terminal));
      expect(outcome).toEqual({ events: ['partial', 'done'], error: undefined });
      let error: unknown;
      try {
        (kept as () => unknown)();
      } catch (caught) {
        error = caught;
      }
      expect({
        code: (error as MiddlewareError).code,
        handler: (error as MiddlewareError).handler,
        terminalCalls: terminal.mock.calls.length,
      }).toEqual({
        code: 'ERR_NEXT_AFTER_SETTLE',
        handler: 'keeper',
        terminalCalls: 1,
      });
      expect(setup.writes).toEqual([{ turns: 0 }]);
    });
  });

  describe('schema failures', () => {
    const stage = createStage<{ topic: string }, string, string>('misuse', {
      context: z.object({ topic: z.string().min(5) }),
      result: z.string().min(5),
    });
    async function* short(): AsyncGenerator<string, void, undefined> {
      yield 'tiny';
    }

    it('keeps the zod issues of a context schema failure in cause', async () => {
      const setup = context(stage);
      const error = (await capture(() => setup.registry.invoke(stage, { topic: 'x' }, short, { state: setup.state }))) as MiddlewareError;
      expect({ code: error.code, paths: (error.cause as z.ZodError).issues.map((issue) => issue.path), writes: setup.writes }).toEqual({
        code: 'ERR_CONTEXT_INVALID',
        paths: [['topic']],
        writes: [],
      });
    });

    it('keeps the zod issues of a result schema failure in cause', async () => {
      const setup = context(stage);
      const error = (await capture(() =>
        setup.registry.invoke(stage, { topic: 'a long topic' }, short, { state: setup.state }),
      )) as MiddlewareError;
      expect({ code: error.code, issues: (error.cause as z.ZodError).issues.map((issue) => issue.code), writes: setup.writes }).toEqual({
        code: 'ERR_RESULT_INVALID',
        issues: ['too_small'],
        writes: [],
      });
    });
  });

  describe('isResult that throws', () => {
    it.each([
      ['while streaming (results are held for an Output handler)', true],
      ['on the last event (pass mode)', false],
    ])('passes the guard’s error through unchanged %s, writing nothing', async (_label, withOutput) => {
      const guardError = new Error('guard failed');
      const stage = createStage<{ topic: string }, string, string>('misuse', {
        isResult: (event) => {
          if (event === 'bad') throw guardError;
          return event.startsWith('r');
        },
      });
      const setup = context(stage);
      if (withOutput) setup.registry.add(stage.Output, (result) => result);
      const error = await capture(() =>
        setup.invoke(async function* terminal() {
          yield 'r1';
          yield 'bad';
        }),
      );
      expect(error).toBe(guardError);
      expect(setup.writes).toEqual([]);
    });
  });
});
