/**
 * Gives a built-in handler its public name for good.
 *
 * Why not rely on the name of the function expression: a bundler renames an
 * inner function whose name collides with another binding of the bundle
 * (esbuild turns the `retry` handler inside the `retry()` factory into
 * `retry2`), and that name reaches `describe()`, `explain()`, errors, spans
 * and `runStage(...).calls`. An own `name` property set at run time survives
 * any renaming, minifier or bundler.
 *
 * @example
 * ```ts
 * const logged: WrapHandler<ModelContext, ModelEvent> = named('logged', async function* (context, next) { yield* next(context); });
 * ```
 */
export function named<THandler extends (...args: never[]) => unknown>(name: string, handler: THandler): THandler {
  // A function's own `name` is read-only but configurable, so it is redefined rather than assigned.
  Object.defineProperty(handler, 'name', { value: name, configurable: true });
  return handler;
}
