/**
 * The registry operations of a chain case, as zod schemas: `add` of an Input,
 * Wrap or Output handler script, bundles with what they provide, dispose,
 * remove, instrumentations, the built-in middleware, and contribution keys;
 * and the expected error of an operation or of the invoke.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { json } from './case-base';
import { inputStep, outputStep, returns, wrapStep } from './chain-steps';

const common = {
  fnName: z.string().optional().describe('The function name (default: none, so the name is derived)'),
  name: z.string().optional(),
  order: z.number().optional(),
  id: z.string().optional(),
  before: z.array(z.string()).optional(),
  after: z.array(z.string()).optional(),
  replace: z.boolean().optional(),
  next: z.enum(['many', 'once', 'at-most-once']).optional(),
  rawOptions: z
    .record(z.string(), json)
    .optional()
    .describe('Passed to add as the options object instead of the fields above (to test validation)'),
  notAFunction: json.optional().describe('Registers this value instead of a function'),
  reuse: z.string().optional().describe('Registers the very function of the labelled registration again (its steps are ignored)'),
  target: z
    .enum(['phase', 'bare', 'forged'])
    .optional()
    .describe("'bare' passes the stage itself (Wrap); 'forged' passes a spread copy of the phase token"),
  stage: z.string().optional().describe('Key of another stage from otherStages (default: the main stage)'),
  label: z.string().optional().describe('Names the registration for dispose/remove operations'),
  scope: z.enum(['parent', 'child', 'invoke']).optional().describe("Registry level (default 'parent')"),
  expectError: z
    .lazy(() => errorExpectation)
    .optional()
    .describe('The add is expected to throw this'),
};

const addInput = z.strictObject({
  op: z.literal('add'),
  phase: z.literal('input'),
  steps: z.array(inputStep).default([]),
  async: z.boolean().optional(),
  ...common,
});
const addWrap = z.strictObject({
  op: z.literal('add'),
  phase: z.literal('wrap'),
  steps: z.array(wrapStep).default([]),
  finally: z.string().optional(),
  returns,
  ...common,
});
const addOutput = z.strictObject({
  op: z.literal('add'),
  phase: z.literal('output'),
  steps: z.array(outputStep).default([]),
  async: z.boolean().optional(),
  ...common,
});
const addOperation = z.discriminatedUnion('phase', [addInput, addWrap, addOutput]);

/** An expected error. */
export const errorExpectation = z
  .strictObject({
    code: z.string().optional().describe('MiddlewareError code; absent for a user error'),
    message: z.string().optional().describe('For a user error: its message (the very object thrown must arrive)'),
    stage: z.string().nullable().optional().describe('null: the error has no stage'),
    phase: z.string().nullable().optional().describe('null: the error has no phase'),
    handler: z.string().nullable().optional().describe('null: the error names no handler'),
    cause: json
      .optional()
      .describe(
        'The cause: a string abort reason, {"issues": [messages]} for a schema error, {"code": ...} or {"message": ...} for other errors',
      ),
  })
  .describe('An expected error');

/** One value a bundle contributes with registrar.provide (MW-054). */
const provideSpec = z.strictObject({
  key: z.string().describe("The name of a key of the case's keys"),
  value: json,
  rawKey: json.optional().describe('Passed to provide() as the key instead of the named key (to test validation)'),
  label: z.string().optional().describe('Names the disposer provide() returns, for dispose operations'),
});

/** A contribution key of the case (MW-053). */
export const keySpec = z.strictObject({
  name: json.describe('The name given to createContributionKey (a string, or another value to test validation)'),
  identify: json.optional().describe('true: identify(value) returns value.id; another value is passed as identify as it is'),
  stage: json.optional().describe('true: the main stage; another value is passed as stage as it is'),
  expectError: z
    .lazy(() => errorExpectation)
    .optional()
    .describe('createContributionKey is expected to throw this'),
});

/** One registry operation. */
export const operation = z.union([
  addOperation,
  z.strictObject({
    op: z.literal('bundle'),
    name: z.string(),
    label: z.string().optional(),
    scope: z.enum(['parent', 'child']).optional(),
    handlers: z.array(addOperation),
    provides: z.array(provideSpec).optional().describe('Values contributed with registrar.provide, after the handlers'),
    throwAfter: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('setup throws Error("setup failed") after this many registrations (handlers, then provides)'),
    expectError: errorExpectation.optional(),
  }),
  z.strictObject({ op: z.literal('dispose'), label: z.string(), times: z.number().int().positive().optional() }),
  z.strictObject({
    op: z.literal('remove'),
    id: z.string().optional(),
    label: z.string().optional().describe('remove(target, handler) of the labelled registration'),
    scope: z.enum(['parent', 'child']).optional(),
    expect: z.boolean().describe('The value remove returns'),
  }),
  z.strictObject({
    op: z.literal('instrument'),
    name: z.string(),
    scope: z.enum(['parent', 'child']).optional(),
    invokeReturns: json.optional().describe('invoke() returns this value instead of the recording observer'),
    layerReturns: json
      .optional()
      .describe("The observer's layer hook records its line, then returns this value instead of the observed generator"),
  }),
  z
    .strictObject({
      op: z.literal('use'),
      builtin: z.string(),
      options: z.record(z.string(), json).default({}),
      label: z.string().optional(),
      scope: z.enum(['parent', 'child']).optional(),
    })
    .describe('Registers a built-in middleware bundle (the mapping of each built-in is in spec/README.md)'),
]);

/** One registry operation of a chain case. */
export type Operation = z.infer<typeof operation>;
/** One add operation. */
export type AddOperation = z.infer<typeof addOperation>;
/** An expected error. */
export type ErrorExpectation = z.infer<typeof errorExpectation>;
