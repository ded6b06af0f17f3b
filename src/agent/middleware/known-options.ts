/**
 * The check that a built-in's options hold only keys it knows, so a
 * misspelt option (`keepRecnt`) is refused when the factory is called
 * instead of being silently ignored.
 */
import { invalidOption } from '../../middleware/errors';

/**
 * Throws when `options` has an own key that `known` does not list.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: factory`) naming every unknown key.
 */
export function refuseUnknownOptions(factory: string, options: object, known: readonly string[], shape: string): void {
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw invalidOption(factory, `options must be ${shape}; unknown option ${unknown.join(', ')}`, options);
}
