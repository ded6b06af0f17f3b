import { brand, isBranded } from '../util/brand';
import { invalidStage } from './messages';
import { describeValue, safeString } from '../util/describe-value';
import { isSchema } from './schema';
import type { AnyStage, MiddlewareStage, Phase, PhaseToken, StageOptions } from './types';
import { isObject } from '../util/is-object';

/**
 * Creates a stage token for one step of a loop. The token is frozen and
 * compared by identity: two stages with the same name are different stages.
 *
 * @param name - Used in errors, traces and `describe()`.
 * @param options - Result guard and zod schemas for the context and result.
 * @throws MiddlewareError `ERR_INVALID_STAGE` for an empty name or malformed options.
 * @example
 * ```ts
 * const InvokeModelStage = createStage<ModelContext, ModelResult, ModelEvent>('invokeModel', {
 *   isResult: (event): event is ModelResult => event.type === 'result',
 * });
 * registry.add(InvokeModelStage.Input, (context) => ({ ...context, temperature: 0 }));
 * ```
 */
export function createStage<TContext, TResult extends TEvent, TEvent = TResult>(
  name: string,
  options: StageOptions<TContext, TResult, TEvent> = {},
): MiddlewareStage<TContext, TResult, TEvent> {
  if (typeof name !== 'string' || name.length === 0) {
    throw invalidStage(safeString(name), `its name must be a non-empty string, got ${describeValue(name)}`);
  }
  if (!isObject(options)) {
    throw invalidStage(name, `options must be an object (or left out), got ${describeValue(options)}`);
  }
  if (options.isResult !== undefined && typeof options.isResult !== 'function') {
    throw invalidStage(name, `options.isResult must be a function, got ${describeValue(options.isResult)}`);
  }
  for (const key of ['context', 'result'] as const) {
    const schema = options[key];
    if (schema !== undefined && !isSchema(schema)) {
      throw invalidStage(name, `options.${key} must be a schema with safeParse (a zod schema), got ${describeValue(schema)}`);
    }
  }
  const stage = {
    name,
    isResult: options.isResult,
    contextSchema: options.context,
    resultSchema: options.result,
  } as { -readonly [K in keyof MiddlewareStage<TContext, TResult, TEvent>]: MiddlewareStage<TContext, TResult, TEvent>[K] };
  stage.Input = phaseToken('input', stage);
  stage.Wrap = phaseToken('wrap', stage);
  stage.Output = phaseToken('output', stage);
  return brand(Object.freeze(stage), 'stage');
}

function phaseToken<TPhase extends Phase, TContext, TResult extends TEvent, TEvent>(
  phase: TPhase,
  stage: MiddlewareStage<TContext, TResult, TEvent>,
): PhaseToken<TPhase, TContext, TResult, TEvent> {
  return brand(Object.freeze({ phase, stage }), 'phase-token');
}

/** True for a stage created by {@link createStage} (from any installed copy). */
export function isStage(value: unknown): value is AnyStage {
  return isBranded(value, 'stage');
}

/** True for a phase token (`Stage.Input`, `Stage.Wrap`, `Stage.Output`) of a genuine stage. */
export function isPhaseToken(value: unknown): value is AnyStage['Input'] | AnyStage['Wrap'] | AnyStage['Output'] {
  return isBranded(value, 'phase-token');
}
