import type { Middleware } from '../registry/bundle';
import type { MiddlewareResult } from '../stage/result';
import type { AnyStage, MiddlewareStage, Schema } from '../stage/types';
import { isSchema, parseWithSchema } from '../stage/schema';
import { invalidOption, validationFailed } from './errors';
import { named } from './named';

/** Options of {@link validate}: zod schemas (or anything with `safeParse`). */
export interface ValidateSchemas<TContext, TResult> {
  /** Checked by the Input handler; the parsed context goes on. */
  readonly context?: Schema<TContext>;
  /** Checked by the Output handler on the final result; the parsed result goes on. */
  readonly result?: Schema<TResult>;
}

/** Shown in a type error when a schema's output does not fit the stage's type. */
export interface SchemaMismatch<TWhich extends 'context' | 'result'> {
  /** The schema whose parsed value is not of the stage's type. */
  readonly 'the schema output does not fit the stage': TWhich;
}

/** `unknown` when the schemas' outputs fit the stage's types, else a {@link SchemaMismatch}. */
export type SchemasFit<TContextOut, TResultOut, TContext, TResult> = [TContextOut] extends [TContext]
  ? [TResultOut] extends [TResult]
    ? unknown
    : SchemaMismatch<'result'>
  : SchemaMismatch<'context'>;

/** What {@link validate} returns: two handlers, and a bundle that registers them on a stage. */
export interface Validation<TContextOut, TResultOut> {
  /**
   * Input handler `validateContext`; passes the context through unchanged
   * when no context schema was given. Generic so it fits any stage: prefer
   * {@link Validation.on}, which checks the schema against the stage's types.
   */
  readonly input: <TContext>(context: TContext) => Promise<TContext>;
  /** Output handler `validateResult`; passes the result through unchanged when no result schema was given. */
  readonly output: <TResult>(result: MiddlewareResult<TResult>) => Promise<MiddlewareResult<TResult>>;
  /**
   * A bundle named `validate` registering, on `stage`, the handlers a schema
   * was given for; the stage's name then appears in the errors. It does not
   * compile when a schema's output type does not fit the stage's type.
   */
  on<TContext, TResult extends TEvent, TEvent>(
    stage: MiddlewareStage<TContext, TResult, TEvent> & SchemasFit<TContextOut, TResultOut, TContext, TResult>,
  ): Middleware;
}

/**
 * Checks the context after the Input handlers registered before it, and the
 * result before the Output handlers registered before it, against zod
 * schemas. Unlike the stage's own schemas, these are middleware: they can be
 * added per registry, per scope or per invoke.
 *
 * @throws MiddlewareError `ERR_CONTEXT_INVALID` / `ERR_RESULT_INVALID` (at run
 *   time) with the schema's error (zod's issues) as `cause`.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once when a schema has no `safeParse`.
 * @example
 * ```ts
 * registry.use(validate({ context: ModelContextSchema, result: ModelResultSchema }).on(ModelStage));
 * ```
 */
export function validate<TContextOut = never, TResultOut = never>(schemas: ValidateSchemas<TContextOut, TResultOut>): Validation<TContextOut, TResultOut> {
  if (schemas === null || typeof schemas !== 'object') throw invalidOption('validate', 'expects { context?, result? } schemas', schemas);
  for (const which of ['context', 'result'] as const) {
    const schema = schemas[which];
    if (schema !== undefined && !isSchema(schema)) {
      throw invalidOption('validate', `options.${which} must be a schema with safeParse (a zod schema)`, schema);
    }
  }
  // The casts restate what the schema checked: its parsed value is of the stage's type (see SchemasFit).
  const handlers = (stage: string | undefined) => ({
    input: named('validateContext', async function validateContext<TContext>(context: TContext): Promise<TContext> {
      return schemas.context === undefined ? context : ((await parse(schemas.context, context, stage, 'context')) as unknown as TContext);
    }),
    output: named('validateResult', async function validateResult<TResult>(result: MiddlewareResult<TResult>): Promise<MiddlewareResult<TResult>> {
      return schemas.result === undefined ? result : result.replace((await parse(schemas.result, result.value, stage, 'result')) as unknown as TResult);
    }),
  });
  const unbound = handlers(undefined);
  return {
    input: unbound.input,
    output: unbound.output,
    on: (stage: AnyStage) => ({
      name: 'validate',
      setup(registrar) {
        const bound = handlers(stage.name);
        if (schemas.context !== undefined) registrar.add(stage.Input, bound.input);
        if (schemas.result !== undefined) registrar.add(stage.Output, bound.output);
      },
    }),
  };
}

/** Parses a value with a schema; a failure becomes the validator's `ERR_CONTEXT_INVALID` or `ERR_RESULT_INVALID`. */
async function parse<T>(schema: Schema<T>, value: unknown, stage: string | undefined, which: 'context' | 'result'): Promise<T> {
  return (await parseWithSchema(schema, value, (issues) => validationFailed(stage, which, issues))) as T;
}
