/**
 * The scripts of a chain case's handlers and terminal, as zod schemas: the
 * steps of a Wrap handler (`next()` and how its events are consumed
 * included), of an Input and an Output handler, of a terminal call, and how a
 * handler or terminal returns its events. The protocol's chain requests
 * carry them as they are (`../protocol/chain-requests.ts`).
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { json } from './case-base';

/** A text recorded into the trace; `{context}`, `{result}`, `{state}`, `{error}`, `{aborted}` and `{call}` are filled in. */
const record = z.strictObject({ record: z.string() }).describe('Appends the text to the trace, placeholders filled in');
const throwStep = z
  .strictObject({
    throw: z.string(),
    with: z
      .record(z.string(), json)
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

/** The kinds of opaque values a terminal can yield (MW-039; spec/README.md, "Handler scripts"). */
export const opaqueKind = z.enum(['promise', 'thenable', 'throwing', 'function-answering']);

/** One step of a terminal call's script. */
export const terminalStep = z.union([
  record,
  throwStep,
  abortStep,
  z.strictObject({ yield: json }),
  z.strictObject({ yieldUndefined: z.literal(true) }).describe('Yields undefined'),
  z
    .strictObject({ yieldOpaque: opaqueKind })
    .describe('Yields a new value of this kind, unchanged (not awaited), which the library must deliver as that very value (MW-039)'),
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

/** Input steps. */
export type InputStep = z.infer<typeof inputStep>;
/** Output steps. */
export type OutputStep = z.infer<typeof outputStep>;
/** Terminal steps. */
export type TerminalStep = z.infer<typeof terminalStep>;
/** How a handler or terminal returns its events. */
export type Returns = z.infer<typeof returns>;
/** A kind of opaque value a terminal yields. */
export type OpaqueKind = z.infer<typeof opaqueKind>;
