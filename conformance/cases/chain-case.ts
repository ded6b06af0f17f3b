/**
 * The chain case format (`"kind": "chain"`), as a zod schema.
 * `spec/case.schema.json` is generated from it (see `spec/README.md`); a test
 * fails when the two differ. A case's handler scripts are in
 * `chain-steps.ts`, its registry operations in `chain-operations.ts`.
 *
 * Why one schema for every kind: the shared fields (`id`, `description`,
 * `rules`, `kind`) are checked for every case file, while only `"chain"`
 * cases are fully described here; the other kinds have schemas of their own.
 * The stage, terminal, state and signal schemas are exported because the
 * protocol's chain requests carry them as they are (`../protocol/chain-requests.ts`).
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { caseBase, json, ruleId } from './case-base';
import { errorExpectation, keySpec, operation } from './chain-operations';
import { returns, terminalStep } from './chain-steps';
import { namedDefinitions } from './schema-names';

/** Declarative object schema for a stage's context or result. */
export const objectSchema = z
  .strictObject({
    required: z.array(z.string()).optional().describe('Keys that must be present (not undefined)'),
    defaults: z.record(z.string(), json).optional().describe('Keys filled in when missing'),
  })
  .describe('Checks an object: required keys and defaults; other keys pass through');

/** The case's stage. */
export const stageSpec = z.strictObject({
  name: z.string(),
  guard: z.boolean().optional().describe('isResult: objects with "result": true are results'),
  context: objectSchema.optional(),
  result: objectSchema.optional(),
  badOption: z
    .enum(['isResult', 'context', 'result', 'options'])
    .optional()
    .describe("Passes 42 for this option; 'options' passes null as the whole options object"),
});

/** The scripted terminal. */
export const terminalSpec = z.strictObject({
  calls: z.array(z.array(terminalStep)).min(1).describe('Steps per call; calls past the end repeat the last'),
  returns,
  finally: z.string().optional().describe('Records this label (with the call number) when the call ends, however it ends'),
  notAFunction: json.optional(),
});

/** The invoke's state binding: an initial value (with links and frozen parts) or a value that is no state. */
export const stateSpec = z.union([
  z.strictObject({
    initial: json,
    link: z
      .array(z.strictObject({ from: z.string(), to: z.string() }))
      .optional()
      .describe(
        'After copying initial: sets the property at path `from` (keys joined by ".") to the object at path `to` ("" is the root), making shared or cyclic references',
      ),
    frozen: z
      .array(z.string())
      .optional()
      .describe('Then freezes (shallowly, Object.freeze) the object at each path, as a caller that froze parts itself'),
  }),
  z.strictObject({ invalid: z.enum(['number', 'string', 'null']) }),
]);

/** The invoke's signal. */
export const signalSpec = z
  .strictObject({
    abortBefore: z.string().optional(),
    reasonKind: z
      .enum(['throwing-message', 'revoked-proxy', 'null-prototype'])
      .optional()
      .describe(
        'With abortBefore: the reason is an Error whose message getter throws, a revoked proxy, or an object without prototype, instead of the string',
      ),
    invalid: z.boolean().optional().describe('Passes a string instead of an AbortSignal'),
  })
  .describe('Gives the invoke a signal');

const consumerSpec = z.strictObject({
  mode: z.enum(['drain', 'run', 'take', 'return-first', 'throw-first']).default('drain'),
  take: z.number().int().nonnegative().optional().describe('For take: events pulled before then'),
  then: z
    .enum(['return', 'throw', 'break', 'dispose'])
    .optional()
    .describe(
      "For take: how to stop (throw uses Error('consumer stop'); dispose calls [Symbol.asyncDispose](), as await using does, and requires it to resolve undefined)",
    ),
  abortAfter: z.number().int().positive().optional().describe("Aborts the invoke's signal after this many delivered events"),
  afterInvoke: z.array(operation).optional().describe('Registry operations between invoke() and the first pull'),
});

const chainCase = z.strictObject({
  id: z.string(),
  description: z.string(),
  rules: z.array(ruleId).min(1),
  kind: z.literal('chain'),
  stage: stageSpec,
  otherStages: z.array(z.string()).optional(),
  keys: z.array(keySpec).optional().describe('Contribution keys created before the registry operations, in order'),
  registry: z.array(operation).default([]),
  invokeOn: z.enum(['parent', 'child']).optional(),
  terminal: terminalSpec,
  context: json.default({}),
  state: stateSpec.optional(),
  signal: signalSpec.optional(),
  invokeWith: z
    .enum(['stage', 'input-token', 'forged'])
    .optional()
    .describe('What invoke() receives in place of the stage (default: the stage)'),
  consumer: consumerSpec.default({ mode: 'drain' }),
  expect: z.strictObject({
    events: z.array(json).optional(),
    result: json.optional(),
    error: errorExpectation.extend({ at: z.enum(['setup', 'invoke']).default('invoke') }).optional(),
    trace: z.array(z.string()).optional(),
    stateWrites: z.array(json).optional().describe("Values passed to the binding's set(), in order"),
    stateGets: z.number().int().optional(),
    snapshotFrozen: z
      .boolean()
      .optional()
      .describe(
        'Whether the state snapshot the library took (the value state.get() returned, or the frozen copy a library that cannot freeze in place takes) is deeply frozen afterwards',
      ),
    frozenEvents: z.array(z.boolean()).optional().describe('For each delivered event, whether it is deeply frozen'),
    warnings: z
      .array(z.strictObject({ code: z.string(), id: z.string().optional(), handler: z.string(), places: z.array(z.string()).optional() }))
      .optional()
      .describe('Warnings passed to onWarning, in order: the unknown id of WARN_UNKNOWN_ID, the places of WARN_DUPLICATE_HANDLER'),
    describe: z
      .array(z.record(z.string(), json))
      .optional()
      .describe('describe() entries; only the listed keys are compared; null stands for undefined'),
    explain: z.string().optional(),
    contributions: z
      .record(z.string(), z.union([z.array(z.record(z.string(), json)), z.strictObject({ error: z.lazy(() => errorExpectation) })]))
      .optional()
      .describe(
        'By key name: contributions(key) of the registry invoked on, before the invoke (null stands for undefined), or the error it throws',
      ),
    stageFrozen: z.boolean().optional().describe('The stage and its phase tokens are frozen and point back to it'),
  }),
});

/** A `"kind": "chain"` case. */
export const ChainCaseSchema = chainCase;
/** A parsed chain case. */
export type ChainCase = z.infer<typeof chainCase>;
/** The state binding of a case. */
export type StateSpec = z.infer<typeof stateSpec>;
/** The signal of a case. */
export type SignalSpec = z.infer<typeof signalSpec>;
/** The stage of a case. */
export type StageSpec = z.infer<typeof stageSpec>;
/** The terminal of a case. */
export type TerminalSpec = z.infer<typeof terminalSpec>;

/** Any case file: the common fields, and the full chain format for `"kind": "chain"`. */
export const CaseSchema = z.union([
  chainCase,
  caseBase.refine((value) => value.kind !== 'chain', { message: 'chain cases must match the chain format' }),
]);

/** The JSON Schema committed as `spec/case.schema.json`. */
export function caseJsonSchema(): unknown {
  return {
    ...(z.toJSONSchema(CaseSchema, { io: 'input', unrepresentable: 'any', metadata: namedDefinitions() }) as object),
    title: 'staged-middleware conformance case',
  };
}
