import type { Middleware } from '../core/index';
import { isStage } from '../core/index';
import type { MiddlewareResult } from '../core/index';
import { isSchema, parseWithSchema } from '../core/internal';
import type { MiddlewareStage, Schema } from '../core/index';
import { invalidOption, validationFailed } from './errors';
import { named } from './named';
import { isObject } from '../util/is-object';

/** The schemas of {@link validate}: zod schemas (or anything with `safeParse`) whose parsed values are of the stage's types. */
export interface ValidateSchemas<TContext, TResult> {
  /** Checked by the Input handler `validateContext`; the parsed context goes on. */
  readonly context?: Schema<TContext>;
  /** Checked by the Output handler `validateResult` on the final result; the parsed result goes on. */
  readonly result?: Schema<TResult>;
}

/**
 * A bundle named `validate` that checks, on `stage`, the context after the
 * Input handlers registered before it and the result before the Output
 * handlers registered before it, against zod schemas: an Input handler
 * `validateContext` when a context schema is given, an Output handler
 * `validateResult` when a result schema is given. Unlike the stage's own
 * schemas, these are middleware, added per registry or per scope (a child
 * registry). A schema whose parsed value is not of the stage's type does not
 * compile.
 *
 * @throws MiddlewareError `ERR_CONTEXT_INVALID` / `ERR_RESULT_INVALID` (at run
 *   time) with the schema's error (zod's issues) as `cause`.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once when `stage` is not a stage or a schema has no `safeParse`.
 * @example
 * ```ts
 * registry.use(validate(ModelStage, { context: ModelContextSchema, result: ModelResultSchema }));
 * ```
 */
export function validate<TContext, TResult extends TEvent, TEvent>(
  stage: MiddlewareStage<TContext, TResult, TEvent>,
  schemas: NoInfer<ValidateSchemas<TContext, TResult>>,
): Middleware {
  if (!isStage(stage)) throw invalidOption('validate', 'its first argument must be a stage from createStage()', stage);
  if (!isObject(schemas)) throw invalidOption('validate', 'expects { context?, result? } schemas', schemas);
  const { context, result } = schemas;
  for (const [which, schema] of [
    ['context', context],
    ['result', result],
  ] as const) {
    if (schema !== undefined && !isSchema(schema))
      throw invalidOption('validate', `options.${which} must be a schema with safeParse (a zod schema)`, schema);
  }
  const validateContext = named('validateContext', async function validateContext(value: TContext): Promise<TContext> {
    const parsed = await parseWithSchema(context as Schema<unknown>, value, (issues) => validationFailed(stage.name, 'context', issues));
    return parsed.data as TContext;
  });
  const validateResult = named('validateResult', async function validateResult(value: MiddlewareResult<TResult>): Promise<
    MiddlewareResult<TResult>
  > {
    const parsed = await parseWithSchema(result as Schema<unknown>, value.value, (issues) =>
      validationFailed(stage.name, 'result', issues),
    );
    return value.replace(parsed.data as TResult);
  });
  const bundle: Middleware = {
    name: 'validate',
    setup(registrar) {
      if (context !== undefined) registrar.add(stage.Input, validateContext);
      if (result !== undefined) registrar.add(stage.Output, validateResult);
    },
  };
  return Object.freeze(bundle);
}
