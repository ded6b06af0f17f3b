import type { AddOptions, HandlerOf, Registration, Target } from './types';

/**
 * Builds one per-invoke registration for `InvokeOptions.use`, with the
 * handler's types inferred from the target (a bare `[target, handler]` tuple
 * inside an array cannot infer them).
 *
 * @example
 * ```ts
 * await registry.run(ModelStage, context, callModel, {
 *   use: [registration(ModelStage.Wrap, async function* audit(context, next) { yield* next(); })],
 * });
 * ```
 */
export function registration<TTarget extends Target>(target: TTarget, handler: HandlerOf<TTarget>, options?: AddOptions): Registration {
  // The tuple is checked again when the invoke resolves it, like any registration.
  return Object.freeze(options === undefined ? [target, handler] : [target, handler, options]) as unknown as Registration;
}
