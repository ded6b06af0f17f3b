/**
 * Misuses of the handler contracts, the terminal and the invoke options,
 * table-driven like the misuses of registration (`misuse.test.ts`): each
 * must end in a MiddlewareError with its code, naming the stage and the
 * handler, or in the user's own error object unchanged, and never write
 * anything.
 *
 * The handlers below are deliberately ill-typed; `as never` lets them past
 * the compiler to reach the run-time checks that JavaScript callers rely on.
 */
import { describe, it } from 'vitest';
import { createStage } from '../../src/core/index';
import { expectMisuse, good, pass, type Row } from './misuse-harness';

const rows: Row[] = [
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
    it.each(rows)('$label', expectMisuse);
  });
});
