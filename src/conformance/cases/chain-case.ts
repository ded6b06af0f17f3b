/**
 * The conformance case format, as a zod schema. `spec/case.schema.json` is
 * generated from it (see `spec/README.md`); a test fails when the two differ.
 *
 * Why one schema for every kind: the shared fields (`id`, `description`,
 * `rules`, `kind`) are checked for every case file, while only `"chain"`
 * cases are fully described here; the other kinds have schemas of their own.
 * The step and stage schemas are exported because the protocol's chain
 * requests carry them as they are (`../protocol/messages.ts`).
 */
import { z } from 'zod';

/** Any JSON value (an event, a context, a result, a state). */
export const json = z.json();

/** A JSON value. */
export type Json = z.infer<typeof json>;

/** Rule ids as they appear in `spec/SPEC.md`. */
export const ruleId = z.string().regex(/^MW-\d{3}$/);

/** A text recorded into the trace; `{context}`, `{result}`, `{state}`, `{error}`, `{aborted}` and `{call}` are filled in. */
const record = z.strictObject({ record: z.string() }).describe('Appends the text to the trace, placeholders filled in');
const throwStep = z
  .strictObject({
    throw: z.string(),
    with: z
      .record(z.string(), z.json())
      .optional()
      .describe('Properties assigned to the error before it is thrown (status, headers, isRetryable, ...)'),
    interruptSignal: z
      .literal(true)
      .optional()
      .describe(
        "The error carries the realm-wide interrupt-signal marker Symbol.for('staged-middleware.interrupt-signal') (MW-083), as the agent kit's InterruptSignal does",
      ),
  })
  .describe('Throws a new Error with this message (a user error)');
const abortStep = z.strictObject({ abort: z.string() }).describe("Aborts the invoke's signal with this string as the reason");
const abortLocal = z
  .strictObject({ abortLocal: z.string() })
  .describe('Aborts the named local controller (see next.signal) with reason "local"');

/** Declarative object schema for a stage's context or result. */
export const objectSchema = z
  .strictObject({
    required: z.array(z.string()).optional().describe('Keys that must be present (not undefined)'),
    defaults: z.record(z.string(), json).optional().describe('Keys filled in when missing'),
  })
  .describe('Checks an object: required keys and defaults; other keys pass through');

/** How a Wrap step consumes an inner chain. */
const nextSpec = z
  .strictObject({
    context: z.record(z.string(), json).optional().describe('Keys merged into the handler context for the inner chain'),
    forward: z
      .union([z.literal('all'), z.number().int().nonnegative()])
      .optional()
      .describe("'all' (default) or the first N events"),
    drop: z.enum(['results', 'nonResults', 'all']).optional().describe('Events not forwarded (results are objects with "result": true)'),
    mapResult: z.record(z.string(), json).optional().describe('Keys merged into forwarded result events'),
    abandon: z.boolean().optional().describe('Leave the inner chain open when stopping early (it is not closed by the handler)'),
    signal: z.string().optional().describe('"aborted" for an already-aborted signal, else the name of a local controller'),
    keep: z.string().optional().describe('Do not consume: keep the inner generator under this name'),
    rawOptions: json.optional().describe('Passed to next() as its options object, as is (to test validation); replaces signal'),
  })
  .describe('Calls next() and consumes the inner events');

/** Steps of a Wrap handler script. */
export type WrapStep =
  | z.infer<typeof record>
  | z.infer<typeof throwStep>
  | z.infer<typeof abortStep>
  | z.infer<typeof abortLocal>
  | { next: z.infer<typeof nextSpec> }
  | { yield: z.infer<typeof json> }
  | { pull: string; count?: number | undefined; forward?: boolean | undefined }
  | { interleave: string[] }
  | { close: string }
  | { try: WrapStep[]; catch?: WrapStep[] | undefined; finally?: WrapStep[] | undefined }
  | { rethrow: true }
  | { repeat: number; steps: WrapStep[] }
  | { retry: number; steps: WrapStep[] }
  | { keepNext: string }
  | { return: true };

/** One step of a Wrap handler script. */
export const wrapStep: z.ZodType<WrapStep> = z.lazy(() =>
  z.union([
    record,
    throwStep,
    abortStep,
    abortLocal,
    z.strictObject({ next: nextSpec }),
    z.strictObject({ yield: json }).describe('Yields this event'),
    z
      .strictObject({ pull: z.string(), count: z.number().int().positive().optional(), forward: z.boolean().optional() })
      .describe('Pulls events from a kept generator'),
    z
      .strictObject({ interleave: z.array(z.string()).min(2) })
      .describe('Pulls one event from each kept generator in turn, forwarding, until all end'),
    z.strictObject({ close: z.string() }).describe('Calls return() on a kept generator'),
    z.strictObject({ try: z.array(wrapStep), catch: z.array(wrapStep).optional(), finally: z.array(wrapStep).optional() }),
    z.strictObject({ rethrow: z.literal(true) }).describe('Inside catch: throws the caught error again'),
    z.strictObject({ repeat: z.number().int().positive(), steps: z.array(wrapStep) }),
    z
      .strictObject({ retry: z.number().int().positive(), steps: z.array(wrapStep) })
      .describe('Runs the steps up to N times while they throw; rethrows the last error'),
    z
      .strictObject({ keepNext: z.string() })
      .describe('Keeps the next function; it is called after the invoke settled, recording late:<code>'),
    z.strictObject({ return: z.literal(true) }).describe('Ends the handler here'),
  ]),
);

/** One step of an Input handler script. */
export const inputStep = z.union([
  record,
  throwStep,
  abortStep,
  z.strictObject({ set: z.record(z.string(), json) }).describe('Returns a new context with these keys merged'),
  z.strictObject({ return: z.enum(['null', 'undefined']) }).describe('Returns null or undefined (a contract violation)'),
  z.strictObject({ toSystemBlocks: z.string() }).describe('Replaces context[key] with toSystemBlocks(context[key])'),
  z.strictObject({ splitSystemPrompt: z.string() }).describe('Replaces context[key] with splitSystemPrompt(context[key])'),
]);

/** One step of an Output handler script. */
export const outputStep = z.union([
  record,
  throwStep,
  abortStep,
  z.strictObject({ replace: json }).describe('result = result.replace(value)'),
  z.strictObject({ update: z.record(z.string(), json) }).describe('result = result.update(draft => merge keys into draft)'),
  z.strictObject({ updateReturn: json }).describe('result = result.update(() => value)'),
  z.strictObject({ returnRaw: json }).describe('Returns this raw value instead of a MiddlewareResult'),
  z.strictObject({ recordOriginal: z.string() }).describe('Records "<label>=<JSON of the value the handler received>"'),
  z
    .strictObject({ mutate: z.record(z.string(), json) })
    .describe(
      'Assigns these keys into the received result value in place; records "mutate:rejected" when that throws, "mutate:applied" when it works',
    ),
]);

/** One step of a terminal call's script. */
export const terminalStep = z.union([
  record,
  throwStep,
  abortStep,
  z.strictObject({ yield: json }),
  z.strictObject({ yieldUndefined: z.literal(true) }).describe('Yields undefined'),
  z.strictObject({ echo: z.literal(true) }).describe('Yields {"result": true, "context": <context>}'),
  z
    .strictObject({ state: z.strictObject({ set: z.record(z.string(), json).optional(), delete: z.array(z.string()).optional() }) })
    .describe('Mutates run.state'),
  z.strictObject({ bindingSet: json }).describe("Calls the state binding's set() directly"),
  z.strictObject({ waitForAbort: z.literal(true) }).describe('Waits until run.signal aborts, then throws its reason'),
  z
    .strictObject({ stall: z.number().int().positive() })
    .describe('Waits this many milliseconds without looking at run.signal (a call that ignores its signal)'),
]);

/** How a handler or terminal returns its events. */
export const returns = z
  .enum(['generator', 'iterable', 'no-return', 'sync-next', 'promise', 'array', 'number'])
  .optional()
  .describe(
    "'generator' (default); a non-generator async 'iterable'; 'no-return', an async iterator with next() only; 'sync-next' (terminal only), an async iterator whose next() runs the script synchronously, returning plain results (not promises) and throwing a throw step's error from next() itself; or a wrong value",
  );

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
const keySpec = z.strictObject({
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
    warnings: z.array(z.strictObject({ code: z.string(), id: z.string(), handler: z.string() })).optional(),
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

/** The fields every case has, whatever its kind. */
export const caseBase = z.looseObject({
  id: z.string().min(1),
  description: z.string().min(1),
  rules: z.array(ruleId).min(1),
  kind: z.string().min(1),
});

/** A `"kind": "chain"` case. */
export const ChainCaseSchema = chainCase;
/** A parsed chain case. */
export type ChainCase = z.infer<typeof chainCase>;
/** One registry operation of a chain case. */
export type Operation = z.infer<typeof operation>;
/** One add operation. */
export type AddOperation = z.infer<typeof addOperation>;
/** Input steps. */
export type InputStep = z.infer<typeof inputStep>;
/** Output steps. */
export type OutputStep = z.infer<typeof outputStep>;
/** Terminal steps. */
export type TerminalStep = z.infer<typeof terminalStep>;
/** How a handler or terminal returns its events. */
export type Returns = z.infer<typeof returns>;
/** The state binding of a case. */
export type StateSpec = z.infer<typeof stateSpec>;
/** The signal of a case. */
export type SignalSpec = z.infer<typeof signalSpec>;
/** The stage of a case. */
export type StageSpec = z.infer<typeof stageSpec>;
/** The terminal of a case. */
export type TerminalSpec = z.infer<typeof terminalSpec>;
/** An expected error. */
export type ErrorExpectation = z.infer<typeof errorExpectation>;

/** Any case file: the common fields, and the full chain format for `"kind": "chain"`. */
export const CaseSchema = z.union([
  chainCase,
  caseBase.refine((value) => value.kind !== 'chain', { message: 'chain cases must match the chain format' }),
]);

/** The JSON Schema committed as `spec/case.schema.json`. */
export function caseJsonSchema(): unknown {
  return {
    ...(z.toJSONSchema(CaseSchema, { io: 'input', unrepresentable: 'any' }) as object),
    title: 'staged-middleware conformance case',
  };
}
