/**
 * The chain requests of the conformance protocol, as zod schemas: one per
 * primitive a port implements for a chain case (begin, the registry
 * operations, the invoke and its consumer, end), which the runner sends step
 * by step. Their replies are in `messages.ts`.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { json } from '../cases/case-base';
import { signalSpec, stageSpec, stateSpec, terminalSpec } from '../cases/chain-case';
import { inputStep, outputStep, returns, wrapStep } from '../cases/chain-steps';

const scope = z.enum(['parent', 'child']);
const label = z.string().optional().describe('Names what this request registers, for later chain.dispose and chain.remove requests');

const placement = {
  phase: z.enum(['input', 'wrap', 'output']),
  stage: z.string().optional().describe("Name of one of the begin request's otherStages; default: the case's stage"),
  target: z
    .enum(['phase', 'bare', 'forged'])
    .optional()
    .describe("'phase' (default): the phase token; 'bare': the stage itself; 'forged': a spread copy of the phase token"),
  options: z.record(z.string(), json).optional().describe('The options argument of add, as it is; absent: add is called without options'),
};

/** The function a registration registers: a script, a value that is no function, or the function of an earlier registration. */
export const handlerSpec = z
  .union([
    z.strictObject({
      steps: z.array(z.union([inputStep, outputStep, wrapStep])).describe("The script, in the step vocabulary of the request's phase"),
      fnName: z.string().optional().describe("The function's own name; absent: a function whose name is empty"),
      async: z.boolean().optional().describe('Input and Output: the handler returns a promise of its value'),
      finally: z.string().optional().describe('Wrap: records this label when the handler ends, however it ends'),
      returns,
    }),
    z.strictObject({ notAFunction: json.describe('Registers this value instead of a function') }),
    z.strictObject({ reuse: z.string().describe('Registers the very function of the registration with this label again') }),
  ])
  .describe('What is registered');

const registration = z.strictObject({ ...placement, handler: handlerSpec });

/** Every chain request. */
export const chainRequests = [
  z
    .strictObject({
      op: z.literal('chain.begin'),
      case: z.string().describe("The case id, for the port's logs"),
      stage: stageSpec,
      otherStages: z.array(z.string()).optional().describe('More stages, with the same guard and no schemas'),
      signal: signalSpec.optional(),
      state: stateSpec.optional(),
    })
    .describe(
      'Starts a chain case: a fresh trace, the stages, a root registry (collecting warnings), one child of it, the signal and the state binding',
    ),
  z
    .strictObject({ op: z.literal('chain.add'), scope: z.enum(['parent', 'child', 'invoke']), ...registration.shape, label })
    .describe("registry.add(target, handler, options?); scope 'invoke' collects the registration for the invoke's options.use instead"),
  z
    .strictObject({
      op: z.literal('chain.bundle'),
      scope,
      name: z.string(),
      handlers: z.array(registration).describe('What setup registers through the registrar, in order'),
      provides: z
        .array(
          z.strictObject({
            key: z.string().describe('The name of a key a chain.key request created'),
            value: json,
            rawKey: json.optional().describe('Given to provide() as the key instead of the named key'),
            label,
          }),
        )
        .optional()
        .describe('What setup contributes with registrar.provide(key, value), in order, after the handlers'),
      throwAfter: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe('setup throws Error("setup failed") after this many registrations (the handlers, then the provides)'),
      label,
    })
    .describe('registry.use({ name, setup })'),
  z
    .strictObject({
      op: z.literal('chain.key'),
      name: json.describe('The name argument, as it is'),
      identify: json
        .optional()
        .describe('true: identify(value) returns value.id; another value is given as identify as it is; absent: no identify'),
      stage: json.optional().describe("true: the case's stage; another value is given as stage as it is; absent: no stage"),
    })
    .describe(
      'createContributionKey(name, options?), options given only when identify or stage is; the key is kept under its name for chain.bundle and chain.contributions',
    ),
  z
    .strictObject({ op: z.literal('chain.contributions'), on: scope, key: z.string().describe('A key name') })
    .describe('contributions(key) of that registry, with a new key of that name (keys are matched by name, MW-053)'),
  z
    .strictObject({ op: z.literal('chain.use'), scope, builtin: z.string(), options: z.record(z.string(), json), label })
    .describe('Registers the built-in middleware as spec/README.md maps it'),
  z
    .strictObject({ op: z.literal('chain.dispose'), label: z.string(), times: z.number().int().positive() })
    .describe('Calls the labelled disposer this many times'),
  z
    .strictObject({
      op: z.literal('chain.remove'),
      scope: scope.optional(),
      handlerId: z.string().optional(),
      label: z.string().optional(),
    })
    .describe(
      'registry.remove(handlerId), or remove(target, handler) of the labelled registration (on its own scope unless scope is given)',
    ),
  z
    .strictObject({
      op: z.literal('chain.instrument'),
      scope,
      name: z.string(),
      invokeReturns: json.optional().describe('invoke() returns this value instead of the recording observer'),
      layerReturns: json.optional().describe("The observer's layer hook records its line, then returns this value"),
    })
    .describe('registry.instrument({ name, invoke }) with the recording observer of spec/README.md'),
  z
    .strictObject({ op: z.literal('chain.describe'), on: scope })
    .describe('describe(stage, { use }) and explain(stage, { use }) of that registry'),
  z
    .strictObject({
      op: z.literal('chain.invoke'),
      on: scope,
      stageAs: z
        .enum(['stage', 'input-token', 'forged'])
        .describe('What invoke() receives: the stage, its Input token, or a spread copy of the stage'),
      context: json,
      terminal: terminalSpec,
      consumer: z.enum(['iterate', 'run']).describe("'iterate': invoke(); 'run': run(), awaited"),
    })
    .describe("Invokes the stage with the begin request's signal and state binding and the collected per-invoke registrations"),
  z.strictObject({ op: z.literal('chain.next') }).describe('Pulls one event of the invoke'),
  z.strictObject({ op: z.literal('chain.return') }).describe("The invoke's return()"),
  z.strictObject({ op: z.literal('chain.throw') }).describe('The invoke\'s throw(error) with a new Error("consumer stop")'),
  z.strictObject({ op: z.literal('chain.asyncDispose') }).describe("The invoke's [Symbol.asyncDispose]()"),
  z.strictObject({ op: z.literal('chain.abort'), reason: z.string() }).describe("Aborts the invoke's signal with this reason"),
  z
    .strictObject({ op: z.literal('chain.end') })
    .describe('Calls every next function a keepNext step kept, recording late:<error>, and reports what the case left'),
] as const;
