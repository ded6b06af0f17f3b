/**
 * fast-check arbitraries of scenarios: up to 12 registrations over the three
 * phases and three scope levels, with orders, ids, constraints, replacement
 * and `next` policies; a terminal; a consumer.
 */
import fc from 'fast-check';
import type {
  ConsumerSpec,
  InputBehaviour,
  OutputBehaviour,
  RegistrationSpec,
  Scenario,
  ScopeLevel,
  TerminalSpec,
  WrapBehaviour,
} from './scenario';

/** A small id space, so that duplicates, replacement and constraints meet often. */
const ID = fc.constantFrom('a', 'b', 'c', 'd', 'e');
/** Ids for constraints include one registered nowhere. */
const CONSTRAINT_ID = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'nowhere');

/** Wrap behaviours, common ones weighted up, pathological ones rare. */
export const wrapBehaviour: fc.Arbitrary<WrapBehaviour> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'pass' } as const), weight: 6 },
  { arbitrary: fc.constant({ kind: 'filter' } as const), weight: 2 },
  { arbitrary: fc.constant({ kind: 'map' } as const), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('inject-before' as const), result: fc.boolean(), bang: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('inject-after' as const), result: fc.boolean(), bang: fc.boolean() }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'short-circuit' } as const), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('retry' as const), attempts: fc.integer({ min: 1, max: 3 }) }), weight: 3 },
  { arbitrary: fc.constant({ kind: 'throw-before' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'throw-after' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'catch-recover' } as const), weight: 2 },
  { arbitrary: fc.constant({ kind: 'replace-context' } as const), weight: 2 },
  { arbitrary: fc.constant({ kind: 'peek' } as const), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('break-after' as const), count: fc.integer({ min: 1, max: 4 }) }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'call-twice' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'interleave' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'throw-in-finally' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'yield-undefined' } as const), weight: 1 },
);

const inputBehaviour: fc.Arbitrary<InputBehaviour> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('append' as const), async: fc.boolean(), bang: fc.boolean() }), weight: 8 },
  { arbitrary: fc.constant({ kind: 'throw' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'undefined' } as const), weight: 1 },
);

const outputBehaviour: fc.Arbitrary<OutputBehaviour> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('append' as const), async: fc.boolean(), bang: fc.boolean() }), weight: 8 },
  { arbitrary: fc.constant({ kind: 'throw' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'raw' } as const), weight: 1 },
);

const level: fc.Arbitrary<ScopeLevel> = fc.oneof(
  { arbitrary: fc.constant('root' as const), weight: 4 },
  { arbitrary: fc.constant('child' as const), weight: 2 },
  { arbitrary: fc.constant('invoke' as const), weight: 1 },
);

const common = fc.record({
  level,
  order: fc.option(fc.integer({ min: -2, max: 2 }), { nil: undefined, freq: 2 }),
  id: fc.option(ID, { nil: undefined, freq: 2 }),
  before: fc.oneof(
    { arbitrary: fc.constant([] as string[]), weight: 3 },
    { arbitrary: fc.uniqueArray(CONSTRAINT_ID, { maxLength: 2 }), weight: 2 },
  ),
  after: fc.oneof(
    { arbitrary: fc.constant([] as string[]), weight: 3 },
    { arbitrary: fc.uniqueArray(CONSTRAINT_ID, { maxLength: 2 }), weight: 2 },
  ),
  replace: fc.boolean(),
});

/** One registration; constraints never name the registration's own id, `replace` only with an id. */
export const registration: fc.Arbitrary<RegistrationSpec> = fc
  .tuple(
    common,
    fc.oneof(
      { arbitrary: fc.record({ phase: fc.constant('input' as const), behaviour: inputBehaviour }), weight: 2 },
      {
        arbitrary: fc.record({
          phase: fc.constant('wrap' as const),
          behaviour: wrapBehaviour,
          next: fc.oneof(
            { arbitrary: fc.constant('many' as const), weight: 6 },
            { arbitrary: fc.constant('once' as const), weight: 1 },
            { arbitrary: fc.constant('at-most-once' as const), weight: 1 },
          ),
        }),
        weight: 5,
      },
      { arbitrary: fc.record({ phase: fc.constant('output' as const), behaviour: outputBehaviour }), weight: 2 },
    ),
  )
  .map(([shared, specific]) => ({
    ...shared,
    before: shared.before.filter((id) => id !== shared.id),
    after: shared.after.filter((id) => id !== shared.id),
    replace: shared.id !== undefined && shared.replace,
    ...specific,
  }));

const terminal: fc.Arbitrary<TerminalSpec> = fc.record({
  count: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 6 }), weight: 5 }, { arbitrary: fc.integer({ min: 0, max: 50 }), weight: 1 }),
  throwAt: fc.oneof(
    { arbitrary: fc.constant(Number.POSITIVE_INFINITY), weight: 5 },
    { arbitrary: fc.integer({ min: 0, max: 6 }), weight: 1 },
  ),
  endsWithResult: fc.oneof({ arbitrary: fc.constant(true), weight: 5 }, { arbitrary: fc.constant(false), weight: 1 }),
  awaits: fc.boolean(),
});

const consumer: fc.Arbitrary<ConsumerSpec> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'drain' } as const), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('break' as const), after: fc.integer({ min: 1, max: 5 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('abort' as const), after: fc.integer({ min: 1, max: 5 }) }), weight: 2 },
);

/** A whole scenario. */
export const scenario: fc.Arbitrary<Scenario> = fc.record({
  registrations: fc.array(registration, { maxLength: 12 }),
  guard: fc.constantFrom('none' as const, 'prefix' as const, 'throwing' as const),
  contextSchema: fc.oneof(
    { arbitrary: fc.constant('none' as const), weight: 4 },
    { arbitrary: fc.constantFrom('sync' as const, 'async' as const), weight: 1 },
  ),
  resultSchema: fc.oneof(
    { arbitrary: fc.constant('none' as const), weight: 3 },
    { arbitrary: fc.constantFrom('sync' as const, 'async' as const), weight: 1 },
  ),
  state: fc.boolean(),
  terminal,
  consumer,
  instrumented: fc.boolean(),
});
