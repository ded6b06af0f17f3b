import { describeValue } from '../util/describe-value';
import { frozenCopy } from '../agent/values/freeze';
import { invalidToolOptions } from './errors';
import type { JsonSchema, Tool, ToolRunContext, ToolSpec } from '../agent/types/tool';
import { isObject } from '../util/is-object';

/** What a scripted tool does on one call. */
export type ScriptedToolOutcome =
  /** Returns the value. */
  | { readonly value: unknown }
  /** Throws the error (the same object). */
  | { readonly error: unknown };

/** Options of {@link ScriptedTool}. */
export interface ScriptedToolOptions {
  /** The tool's name. */
  readonly name: string;
  /** Description for the model. Default: `Scripted tool <name>.` */
  readonly description?: string;
  /** Input schema. Default: an object schema with no constraints. */
  readonly inputSchema?: JsonSchema;
  /** Computes each call's answer; a throw becomes the call's failure. Takes precedence over `outcomes`. */
  readonly respond?: (input: unknown, context: ToolRunContext) => unknown;
  /** The answers of calls 1, 2, ...; the last one repeats. Default: `{ value: 'ok' }`. */
  readonly outcomes?: readonly ScriptedToolOutcome[];
}

/** What a scripted tool received in one call. */
export interface ScriptedToolCall {
  /** The input. */
  readonly input: unknown;
  /** The tool use id. */
  readonly toolUseId: string;
  /** The signal it was given. */
  readonly signal: AbortSignal;
}

/**
 * A tool with scripted answers that records its calls. For tests and demos.
 *
 * @example
 * ```ts
 * const weather = new ScriptedTool({ name: 'weather', outcomes: [{ value: 'Sunny, 21 °C' }] });
 * ```
 */
export class ScriptedTool implements Tool {
  /** How the model sees it (a frozen copy of what was given). */
  readonly spec: ToolSpec;
  private readonly options: ScriptedToolOptions;
  private readonly recorded: ScriptedToolCall[] = [];
  /** The frozen copy `calls` hands out, made again only after a new call. */
  private snapshot: readonly ScriptedToolCall[] | undefined;

  /**
   * Creates a scripted tool.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` without a non-empty `name`, or
   *   for a `respond` that is not a function or `outcomes` that are not an array.
   */
  constructor(options: ScriptedToolOptions) {
    checkToolOptions(options);
    this.options = options;
    this.spec = frozenCopy(
      {
        name: options.name,
        description: options.description ?? `Scripted tool ${options.name}.`,
        inputSchema: options.inputSchema ?? { type: 'object' },
      },
      'options',
    );
  }

  /** Every call received, in order: a frozen copy (of frozen records), taken when a call was added since the last one. */
  get calls(): readonly ScriptedToolCall[] {
    this.snapshot ??= Object.freeze([...this.recorded]);
    return this.snapshot;
  }

  /** Records the call, then answers with the next outcome (or `respond`). */
  async run(input: unknown, context: ToolRunContext): Promise<unknown> {
    this.recorded.push(Object.freeze({ input, toolUseId: context.toolUse.toolUseId, signal: context.signal }));
    this.snapshot = undefined;
    if (this.options.respond !== undefined) return this.options.respond(input, context);
    const outcomes = this.options.outcomes ?? [{ value: 'ok' }];
    const outcome = outcomes[Math.min(this.recorded.length, outcomes.length) - 1] ?? { value: 'ok' };
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }
}

/** Rejects options a scripted tool cannot run with, naming the first problem. */
function checkToolOptions(options: ScriptedToolOptions): void {
  let problem: string | undefined;
  if (!isObject(options) || typeof options.name !== 'string' || options.name.length === 0) {
    problem = `options.name must be a non-empty string; got options ${describeValue(options)}`;
  } else if (options.respond !== undefined && typeof options.respond !== 'function') {
    problem = `options.respond must be a function (input, context) => answer; got ${describeValue(options.respond)}`;
  } else if (options.outcomes !== undefined && !Array.isArray(options.outcomes)) {
    problem = `options.outcomes must be an array of { value } or { error }; got ${describeValue(options.outcomes)}`;
  }
  if (problem !== undefined) {
    throw invalidToolOptions(problem);
  }
}
