/**
 * The format of reliability conformance cases (`spec/cases/reliability-*.json`,
 * `"kind": "reliability"`), as a zod schema. `spec/reliability-case.schema.json`
 * is generated from it by `test/reliability/export-schema.ts`; a test fails
 * while the two differ.
 *
 * Why one strict object per scenario: each scenario has fixed parameters and a
 * fixed shape of what it observes, so a misspelt parameter or an `expect` key
 * the runner never fills in is rejected instead of silently ignored.
 */
import { z } from 'zod';
import { json } from './case-base';
import { namedDefinitions } from './schema-names';

/** Rule ids as they appear in `spec/SPEC.md`. */
const ruleId = z.string().regex(/^MW-\d{3}$/);

/** An error as the scenarios report it: the code of a library error, else the message of the user error; `null` when none. */
const errorText = z
  .string()
  .nullable()
  .describe('The code of a MiddlewareError, else the message of the user error; null when nothing was thrown');

/** The fields every case has, with the kind fixed to `"reliability"`. */
const common = {
  id: z.string().min(1).describe('Unique id, also the file name'),
  description: z.string().min(1).describe('The behaviour, in one or two sentences'),
  rules: z.array(ruleId).min(1).describe('The rule ids the case exercises'),
  kind: z.literal('reliability'),
};

const queuedCalls = z
  .strictObject({
    ...common,
    scenario: z.literal('queued-calls'),
    events: z.array(json).describe("The terminal's events"),
    failAfter: z.number().int().nonnegative().optional().describe('The terminal throws Error("stream failed") after this many events'),
    calls: z
      .array(z.enum(['next', 'return', 'throw']))
      .min(1)
      .describe('Calls made on one invoke before any settles; throw passes Error("consumer stop")'),
    expect: z.strictObject({
      settled: z.array(z.number().int().nonnegative()).describe('Call indexes in settling order'),
      outcomes: z
        .array(
          z.union([
            z.strictObject({
              value: z.union([z.strictObject({ value: json, done: z.literal(false) }), z.strictObject({ done: z.literal(true) })]),
            }),
            z.strictObject({ error: z.string() }),
          ]),
        )
        .describe('Per call: the iterator result it resolved with, or the error it rejected with'),
    }),
  })
  .describe('Calls on one invoke made at once');

const guardThrows = z
  .strictObject({
    ...common,
    scenario: z.literal('guard-throws'),
    events: z.array(json).describe("The terminal's events"),
    throwOn: json.describe('isResult throws Error("guard failed") for an event deep-equal to this'),
    output: z.boolean().describe('Adds an Output handler recording "output"'),
    state: z.boolean().describe('Passes a state binding whose get() returns {"n": 0}'),
    expect: z.strictObject({
      events: z.array(json).describe('Events delivered to the consumer'),
      trace: z.array(z.string()).describe('"layer-f" (the Wrap handler\'s finally), "tf" (the terminal\'s finally), "output"'),
      writes: z.array(json).describe('Values given to set()'),
      error: errorText,
    }),
  })
  .describe('A result guard that throws');

const throwWhenCalled = z
  .strictObject({
    ...common,
    scenario: z.literal('throw-when-called'),
    thrower: z
      .enum(['outer', 'inner', 'terminal'])
      .describe('Which of the two Wrap handlers or the terminal is a plain function throwing Error("thrown when called")'),
    recover: z.boolean().describe('The outer Wrap handler catches, records "caught <error>" and yields {"result": true, "v": "recovered"}'),
    expect: z.strictObject({
      events: z.array(json),
      trace: z.array(z.string()).describe('"outer-f", "inner-f" (the handlers\' finally blocks), "caught <error>"'),
      error: errorText,
    }),
  })
  .describe('A handler or terminal that throws when called instead of returning a generator');

const concurrentStep = z.union([
  z.strictObject({ add: z.string() }).describe("Adds a Wrap handler appending this tag to each event's tags"),
  z.strictObject({ remove: z.string() }).describe('Removes the handler added with this tag'),
  z
    .strictObject({
      invoke: z.string(),
      turns: z.number().int().nonnegative().optional(),
      deltas: z.number().int().nonnegative().optional(),
    })
    .describe(
      'Creates an invoke whose terminal waits this many macrotask turns (default 0), yields deltas {"invoke": name, "delta": i, "tags": []} for i below deltas (default 0), then {"invoke": name, "tags": [], "result": true}',
    ),
  z.strictObject({ pull: z.string() }).describe('Pulls one event of the named running invoke (it counts among the events it delivered)'),
]);

const concurrentInvokes = z
  .strictObject({
    ...common,
    scenario: z.literal('concurrent-invokes'),
    steps: z.array(concurrentStep).min(1).describe('Applied in order; then every invoke is drained at once'),
    expect: z.record(z.string(), z.array(json)).describe('Per invoke name, the events it delivered'),
  })
  .describe('Invokes created between registry changes and run interleaved');

const concurrentWriteback = z
  .strictObject({
    ...common,
    scenario: z.literal('concurrent-writeback'),
    invokes: z.number().int().positive().describe('How many invokes share one state binding over {"count": 0, "writer": -1}'),
    finishOrder: z.array(z.number().int().nonnegative()).describe('Invoke indexes in the order their terminals are let finish'),
    expect: z.strictObject({
      writes: z.array(json).describe('Values given to set(), in order'),
      final: json.describe("The binding's value at the end"),
    }),
  })
  .describe('Concurrent invokes writing state back');

const abandoned = z
  .strictObject({
    ...common,
    scenario: z.literal('abandoned'),
    pulls: z.number().int().nonnegative().describe('Events pulled before the consumer stops pulling without return()'),
    narrowed: z.boolean().describe('The Wrap handler calls next() with a local signal'),
    expect: z.strictObject({
      listeners: z
        .number()
        .int()
        .nonnegative()
        .describe(
          "Abort listeners left on the invoke's signal once the abandoned invoke was garbage-collected (the runner drops every reference to it and forces a collection)",
        ),
      trace: z
        .array(z.string())
        .describe(
          '"layer-f" and "tf" when the finally blocks ran, read before the collection (a runtime may finalise collected generators)',
        ),
    }),
  })
  .describe('An invoke the consumer stops pulling');

const deepChain = z
  .strictObject({
    ...common,
    scenario: z.literal('deep-chain'),
    layers: z.number().int().positive().describe('Number of pass-through Wrap handlers'),
    events: z.number().int().nonnegative().describe('Events the terminal yields'),
    stop: z
      .enum(['drain', 'return-after-first', 'terminal-throws'])
      .describe('How the invoke ends; terminal-throws throws Error("deep failure") after the events'),
    expect: z.strictObject({
      delivered: z.number().int().nonnegative().describe('Events delivered'),
      finallys: z
        .union([z.literal('innermost-first'), z.literal('none'), z.array(z.number().int().nonnegative())])
        .describe('"innermost-first", "none", or the raw order of layer indexes whose finally ran'),
      error: errorText,
    }),
  })
  .describe('A chain of many Wrap layers');

const nestedInvokes = z
  .strictObject({
    ...common,
    scenario: z.literal('nested-invokes'),
    levels: z.number().int().positive().describe('Invokes nested in one another below the outermost'),
    layers: z.number().int().nonnegative().describe('Pass-through Wrap handlers on the stage, which every level runs'),
    stop: z
      .enum(['drain', 'return-after-first', 'leaf-throws'])
      .describe('How the outermost invoke ends; leaf-throws: the innermost terminal throws Error("leaf failure") after its events'),
    expect: z.strictObject({
      delivered: z.array(json).describe('Events the outermost invoke delivered'),
      finallys: z.number().int().nonnegative().describe('Terminal calls whose finally ran'),
      error: errorText,
    }),
  })
  .describe('Invokes of a stage nested in one another, each terminal invoking the stage again');

const copy = z.enum(['first', 'second']);

const secondCopy = z
  .strictObject({
    ...common,
    scenario: z.literal('second-copy'),
    registerThrough: copy.describe(
      'The copy whose standard stages and MiddlewareRegistry the handlers are registered through (the registry is given to the agent)',
    ),
    agentFrom: copy.describe(
      'The copy whose Agent, ScriptedModel and ScriptedTool run; the model asks for the tool "deleteFiles" with input {}, then answers "done"',
    ),
    expect: z.strictObject({
      sameStages: z.boolean().describe('Each standard stage the second copy exports is the very object the first copy exports'),
      trace: z
        .array(z.string())
        .describe(
          '"input" (an InvokeModelStage Input handler, per model call), "guard <tool name>" (an ExecuteToolStage Wrap handler answering with an error tool result without calling next()), "output <stop reason>" (an AgentStreamStage Output handler)',
        ),
      toolCalls: z.number().int().nonnegative().describe('Calls that reached the tool'),
      stopReason: z.string().describe("The stop reason of the run's agentResult"),
      recognised: z
        .strictObject({
          stage: z.boolean().describe("isStage of a stage made by the registering copy's createStage"),
          phaseToken: z.boolean().describe("isPhaseToken of that stage's Wrap token"),
          error: z.boolean().describe("MiddlewareError.isInstance of that copy's MiddlewareError"),
          result: z.boolean().describe("MiddlewareResult.isInstance of that copy's MiddlewareResult"),
          interrupt: z.boolean().describe("InterruptSignal.isInstance of that copy's InterruptSignal"),
        })
        .describe("What the agent's copy recognises of values made by the registering copy"),
    }),
  })
  .describe('Two copies of the library loaded in one realm: handlers registered through one, an agent of the other');

const handedOutValues = z
  .strictObject({
    ...common,
    scenario: z.literal('handed-out-values'),
    expect: z.strictObject({
      mutable: z
        .array(z.string())
        .describe('Paths of handed-out values where a write, an added or deleted property or an array push took effect'),
      unchanged: z
        .boolean()
        .describe(
          'Whether describe(), explain() and a second invoke (its events and what instrumentation saw) are as before the mutation attempts',
        ),
    }),
  })
  .describe('Every value the library hands out, mutated where possible');

const bareRealm = z
  .strictObject({
    ...common,
    scenario: z.literal('bare-realm'),
    expect: z.strictObject({
      globalProcess: z.string().describe('typeof globalThis.process inside the realm'),
      invoke: z
        .strictObject({
          events: z.array(json).describe('Events delivered'),
          terminalCalls: z.number().int().nonnegative().describe('Calls of the scripted terminal'),
        })
        .describe(
          'A stage "reply" whose results have type "done": a retry with no backoff, an Output handler upper-casing the result text through result.update, a terminal failing once with an Error whose status is 503, then yielding {type: "text", text: "hel"} and {type: "done", text: "hello"}',
        ),
      agent: z
        .strictObject({
          stopReason: z.string().describe("The run's stop reason"),
          messages: z.number().int().nonnegative().describe('Messages in the history after the run'),
          toolCalls: z.number().int().nonnegative().describe('Calls that reached the tool'),
          answer: z.string().nullable().describe('The text of the last message'),
        })
        .describe(
          'An agent with model state {turns: 0}, a retry on InvokeModelStage, a ScriptedTool "lookup" answering "shipped", and a ScriptedModel asking for it (input {order: "A-1"}) then answering "Order A-1 has shipped.", run once with "Where is order A-1?"',
        ),
      globals: z
        .array(z.string())
        .describe(
          'What loading and running the library added to the global object: its own keys as strings (a symbol as Symbol(<description>)), sorted',
        ),
    }),
  })
  .describe('The library loaded and run in a realm with the standard and web globals only: no process, no bundler define');

/** A `"kind": "reliability"` case: one of the fixed scenarios, its parameters and what it must observe. */
export const ReliabilityCaseSchema = z.discriminatedUnion('scenario', [
  queuedCalls,
  guardThrows,
  throwWhenCalled,
  concurrentInvokes,
  concurrentWriteback,
  abandoned,
  deepChain,
  nestedInvokes,
  secondCopy,
  handedOutValues,
  bareRealm,
]);

/** A parsed reliability case. */
export type ReliabilityCase = z.infer<typeof ReliabilityCaseSchema>;

/** The scenario names, in the order of the schema. */
export type ReliabilityScenario = ReliabilityCase['scenario'];

/** The JSON Schema committed as `spec/reliability-case.schema.json`. */
export function reliabilityCaseJsonSchema(): unknown {
  return {
    ...(z.toJSONSchema(ReliabilityCaseSchema, { io: 'input', unrepresentable: 'any', metadata: namedDefinitions() }) as object),
    title: 'staged-middleware reliability conformance case',
  };
}
