import { MiddlewareError } from '../errors';
import type { Middleware } from '../registry';
import type { InputHandler, MiddlewareStage, OutputHandler, Schema } from '../types';
import { invalidOption } from './failures';

/** Options of {@link validate}: zod schemas (or anything with `safeParse`). */
export interface ValidateSchemas<TContext, TResult> {
  /** Checked by the Input handler; the parsed context goes on. */
  readonly context?: Schema<TContext>;
  /** Checked by the Output handler on the final result; the parsed result goes on. */
  readonly result?: Schema<TResult>;
}

/** What {@link validate} returns: two handlers, and a bundle that registers both on a stage. */
export interface Validation<TContext, TResult> {
  /** Input handler `validateContext`; passes the context through unchanged when no context schema was given. */
  readonly input: InputHandler<TContext>;
  /** Output handler `validateResult`; passes the result through unchanged when no result schema was given. */
  readonly output: OutputHandler<TResult>;
  /**
   * A bundle named `validate` registering the handlers a schema was given for
   * on `stage`, whose name then appears in the errors.
   */
  // `any` for the event type: the schemas say nothing about events, and the
  // stage's phantom generics are invariant, so no other type would accept every stage.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(stage: MiddlewareStage<TContext, TResult, any>): Middleware;
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
export function validate<TContext = never, TResult = never>(schemas: ValidateSchemas<TContext, TResult>): Validation<TContext, TResult> {
  if (schemas === null || typeof schemas !== 'object') throw invalidOption('validate', 'expects { context?, result? } schemas', schemas);
  for (const which of ['context', 'result'] as const) {
    const schema = schemas[which];
    if (schema !== undefined && typeof (schema as { safeParse?: unknown }).safeParse !== 'function') {
      throw invalidOption('validate', `options.${which} must be a schema with safeParse (a zod schema)`, schema);
    }
  }
  const handlers = (stage: string | undefined) => ({
    input: async function validateContext(context: TContext): Promise<TContext> {
      return schemas.context === undefined ? context : parse(schemas.context, context, stage, 'context');
    },
    output: async function validateResult(result: Parameters<OutputHandler<TResult>>[0]) {
      return schemas.result === undefined ? result : result.replace(await parse(schemas.result, result.value, stage, 'result'));
    },
  });
  const unbound = handlers(undefined);
  return {
    input: unbound.input,
    output: unbound.output,
    on: (stage) => ({
      name: 'validate',
      setup(registrar) {
        const bound = handlers(stage.name);
        if (schemas.context !== undefined) registrar.add(stage.Input, bound.input);
        if (schemas.result !== undefined) registrar.add(stage.Output, bound.output);
      },
    }),
  };
}

async function parse<T>(schema: Schema<T>, value: unknown, stage: string | undefined, which: 'context' | 'result'): Promise<T> {
  const outcome = schema.safeParseAsync !== undefined ? await schema.safeParseAsync(value) : schema.safeParse(value);
  if (outcome.success) return outcome.data;
  const handler = which === 'context' ? 'validateContext' : 'validateResult';
  const where = `${which === 'context' ? 'Input' : 'Output'} handler "${handler}"${stage === undefined ? '' : ` of stage "${stage}"`}`;
  throw new MiddlewareError({
    code: which === 'context' ? 'ERR_CONTEXT_INVALID' : 'ERR_RESULT_INVALID',
    stage,
    phase: which === 'context' ? 'input' : 'output',
    handler,
    message:
      which === 'context'
        ? `${where} rejected the context. The schema's issues are in the cause; fix the caller's context or the Input handler that produced it.`
        : `${where} rejected the result. The schema's issues are in the cause; fix the terminal, the Wrap handler or the Output handler that produced it.`,
    cause: outcome.error,
  });
}
