/**
 * Tools defined by a zod schema: the model sees the schema's JSON Schema, and
 * `run` gets typed, validated input, while input the schema rejects becomes an
 * error result the model can read (MW-185).
 *
 * Why zod is reached through the schema's own methods (`toJSONSchema`,
 * `safeParseAsync`) and named by none of the kit's code or declarations:
 * loading zod defines properties on the global object, which loading the
 * agent kit must not do (MW-204), and zod's declarations need
 * `esModuleInterop` under `node10` resolution; the user's schema brings its
 * own copy of zod, already loaded, and its types.
 */
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalidToolDefinition, invalidToolInput } from './call-errors';
import { frozenCopy } from '../values/freeze';
import type { ApprovalCheckContext, JsonSchema, NeedsApproval, Tool, ToolRunContext, ToolSpec } from '../types/tool';
import { thrownText } from '../values/value-walk';

/** One issue of a schema's error: where in the input, and what is wrong. */
export interface ToolInputIssue {
  /** The path from the input to the part at fault (empty for the input itself). */
  readonly path: readonly PropertyKey[];
  /** What is wrong, in the schema library's words. */
  readonly message: string;
}

/** What parsing an input gives: the parsed value, or the issues. */
export type ToolInputParse<TOutput> =
  | { readonly success: true; readonly data: TOutput }
  | { readonly success: false; readonly error: { readonly issues: readonly ToolInputIssue[] } };

/**
 * The schema `defineTool` takes, seen through the two methods it calls: a zod
 * 4 schema (4.2 or later, where schemas have `toJSONSchema()`) fits as it is,
 * its output type becoming `run`'s input type.
 */
export interface ToolInputSchema<TOutput> {
  /** Validates and parses a value, awaiting asynchronous checks. */
  safeParseAsync(value: unknown): PromiseLike<ToolInputParse<TOutput>>;
  /** The JSON Schema of the schema. */
  toJSONSchema(options: { readonly io: 'input'; readonly target: 'draft-07' }): unknown;
}

/** What {@link defineTool} takes. */
export interface ToolDefinition<TInput> {
  /** The name the model calls the tool by. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The zod schema (zod 4.2 or later) of the tool's input; the model sees its JSON Schema. */
  readonly input: ToolInputSchema<TInput>;
  /**
   * Runs the tool with the validated input (defaults applied, transforms run).
   * A string result becomes a text block, anything else a JSON block; a throw
   * an error result. Leave it out for an external tool, run by the caller.
   */
  run?(input: TInput, context: ToolRunContext): unknown;
  /**
   * Whether a human approves each call first (MW-287): `true` always, a
   * predicate over the validated input when it returns `true` (input the
   * schema rejects asks nothing: the call fails with the schema's error).
   */
  readonly needsApproval?: boolean | ((input: TInput, context: ApprovalCheckContext) => boolean | PromiseLike<boolean>);
}

/**
 * A tool whose input is described and checked by a zod schema. The spec's
 * `inputSchema` is the JSON Schema of what the model must send
 * (`input.toJSONSchema({ io: 'input', target: 'draft-07' })`), frozen; `run`
 * gets the parsed input. Input the schema rejects never reaches `run`: the
 * call fails with `ERR_TOOL_INPUT_INVALID`, which the agent sends back as the
 * error result `Tool "<name>" failed: [ERR_TOOL_INPUT_INVALID] The input of
 * tool "<name>" does not match its schema: input.city: Invalid input: ...`,
 * one `<path>: <message>` per issue, so the model can correct the call.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a definition without a name, a description, a zod 4 schema
 *   with `toJSONSchema()` and `safeParseAsync()`, or with a `run` that is not a function; or for a schema zod
 *   cannot express as JSON Schema (zod's error is the `cause`) or whose JSON Schema cannot be copied.
 * @example
 * ```ts
 * import { z } from 'zod';
 *
 * const forecast = defineTool({
 *   name: 'forecast',
 *   description: 'The weather forecast for a city.',
 *   input: z.object({ city: z.string(), days: z.number().int().min(1).default(3) }),
 *   run: ({ city, days }) => `${days} days of sun in ${city}`,
 * });
 * ```
 */
export function defineTool<TInput>(definition: ToolDefinition<TInput>): Tool {
  const { name, description, input, run, needsApproval } = readDefinition(definition);
  const spec: ToolSpec = Object.freeze({ name, description, inputSchema: inputSchemaOf(name, input) });
  const approval: { needsApproval?: NeedsApproval } = {};
  if (typeof needsApproval === 'function')
    approval.needsApproval = async function needsApprovalOf(value: unknown, context: ApprovalCheckContext): Promise<boolean> {
      const parsed = await input.safeParseAsync(value);
      return parsed.success && (await needsApproval.call(definition, parsed.data, context));
    };
  else if (needsApproval !== undefined) approval.needsApproval = needsApproval;
  if (run === undefined) return Object.freeze({ spec, ...approval });
  return Object.freeze({
    spec,
    ...approval,
    async run(value: unknown, context: ToolRunContext): Promise<unknown> {
      const parsed = await input.safeParseAsync(value);
      if (!parsed.success) throw invalidToolInput(name, parsed.error);
      return run.call(definition, parsed.data, context);
    },
  });
}

/** The definition's parts, each read once and checked. */
function readDefinition<TInput>(definition: ToolDefinition<TInput>): {
  name: string;
  description: string;
  input: ToolInputSchema<TInput>;
  run: ToolDefinition<TInput>['run'];
  needsApproval: ToolDefinition<TInput>['needsApproval'];
} {
  if (!isObject(definition))
    throw invalidToolDefinition(undefined, `the definition must be { name, description, input, run? }, got ${describeValue(definition)}`);
  const { name, description, input, run, needsApproval } = definition as Partial<ToolDefinition<TInput>>;
  if (typeof name !== 'string' || name.length === 0)
    throw invalidToolDefinition(undefined, `name must be a non-empty string, got ${describeValue(name)}`);
  if (typeof description !== 'string') throw invalidToolDefinition(name, `description must be a string, got ${describeValue(description)}`);
  const methods = input as Partial<ToolInputSchema<TInput>> | undefined;
  if (typeof methods?.toJSONSchema !== 'function' || typeof methods.safeParseAsync !== 'function') {
    throw invalidToolDefinition(
      name,
      `input must be a zod 4 schema with toJSONSchema() and safeParseAsync() (zod 4.2 or later; z.object({ ... }), say), got ${describeValue(input)}`,
    );
  }
  if (run !== undefined && typeof run !== 'function')
    throw invalidToolDefinition(name, `run must be a function (or left out for a tool the caller runs), got ${describeValue(run)}`);
  if (needsApproval !== undefined && typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function')
    throw invalidToolDefinition(
      name,
      `needsApproval must be a boolean or a function (input, context) => boolean, got ${describeValue(needsApproval)}`,
    );
  return { name, description, input: methods as ToolInputSchema<TInput>, run, needsApproval };
}

/** The frozen JSON Schema of what the model must send. */
function inputSchemaOf(name: string, input: ToolInputSchema<unknown>): JsonSchema {
  let schema: unknown;
  try {
    schema = input.toJSONSchema({ io: 'input', target: 'draft-07' });
  } catch (error) {
    throw invalidToolDefinition(
      name,
      `zod cannot express the input schema as JSON Schema (${thrownText(error)}); describe the input with types JSON carries`,
      error,
    );
  }
  return frozenCopy(schema as JsonSchema, 'inputSchema', (problem, cause) =>
    invalidToolDefinition(name, `input.toJSONSchema() must give plain data, but ${problem}`, cause),
  );
}
