/**
 * Misuses of registration and Wrap handlers of the wrong shape, table-driven
 * (the handler contracts, terminals and invoke options are in
 * `misuse-contracts.test.ts`): each must end in a MiddlewareError with its
 * code, naming the stage and the handler, or in the user's own error object
 * unchanged, and never write anything.
 *
 * The handlers below are deliberately ill-typed; `as never` lets them past
 * the compiler to reach the run-time checks that JavaScript callers rely on.
 */
import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareError } from '../../src/core/index';
import { capture, context, expectMisuse, good, pass, type Row } from './misuse-harness';

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
    label: 'replace without an id, by a name two handlers have',
    setup: ({ registry, stage }) => {
      registry.add(stage.Wrap, pass as never, { name: 'replacing' });
      registry.add(stage.Wrap, pass as never, { name: 'replacing' });
    },
    attempt: ({ registry, stage }) => registry.add(stage.Wrap, pass as never, { name: 'replacing', replace: true }),
    expected: { code: 'ERR_AMBIGUOUS_NAME', handler: 'replacing' },
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
];

describe('MiddlewareRegistry', () => {
  describe('misuse', () => {
    it.each(rows)('$label', expectMisuse);

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
});
