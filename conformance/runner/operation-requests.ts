/**
 * The protocol requests of a chain case's setup: the `chain.key` request of
 * each contribution key, and the request of each registry operation (`add`
 * with its options made, bundles, built-ins, dispose, remove,
 * instrumentations), as the chain runner (`chain-runner.ts`) sends them.
 *
 * @packageDocumentation
 */
import type { Json } from '../cases/case-base';
import type { ChainCase } from '../cases/chain-case';
import type { AddOperation, Operation } from '../cases/chain-operations';
import type { RequestOf } from '../protocol/messages';

/** The keys of an add operation the add options are made of. */
const OPTION_KEYS = ['name', 'order', 'id', 'before', 'after', 'replace', 'next'] as const;

/** A key of the case, as an operation of its setup. */
export type KeyOperation = NonNullable<ChainCase['keys']>[number] & { readonly op: 'key' };

/** The `chain.key` request of a key. */
export function keyRequest(key: KeyOperation): RequestOf<'chain.key'> {
  return {
    op: 'chain.key',
    name: key.name,
    ...('identify' in key ? { identify: key.identify } : {}),
    ...('stage' in key ? { stage: key.stage } : {}),
  };
}

/** The protocol request of one registry operation. */
export function requestOf(
  operation: Operation,
): RequestOf<'chain.add' | 'chain.bundle' | 'chain.use' | 'chain.dispose' | 'chain.remove' | 'chain.instrument'> {
  switch (operation.op) {
    case 'add':
      return { op: 'chain.add', scope: operation.scope ?? 'parent', ...registration(operation), ...defined('label', operation.label) };
    case 'bundle':
      return {
        op: 'chain.bundle',
        scope: operation.scope ?? 'parent',
        name: operation.name,
        handlers: operation.handlers.map(registration),
        ...defined(
          'provides',
          operation.provides?.map((provided) => ({
            key: provided.key,
            value: provided.value,
            ...('rawKey' in provided ? { rawKey: provided.rawKey as Json } : {}),
            ...defined('label', provided.label),
          })),
        ),
        ...defined('throwAfter', operation.throwAfter),
        ...defined('label', operation.label),
      };
    case 'use':
      return {
        op: 'chain.use',
        scope: operation.scope ?? 'parent',
        builtin: operation.builtin,
        options: operation.options,
        ...defined('label', operation.label),
      };
    case 'dispose':
      return { op: 'chain.dispose', label: operation.label, times: operation.times ?? 1 };
    case 'remove':
      return {
        op: 'chain.remove',
        ...defined('scope', operation.scope),
        ...defined('handlerId', operation.id),
        ...defined('label', operation.label),
      };
    default:
      return {
        op: 'chain.instrument',
        scope: operation.scope ?? 'parent',
        name: operation.name,
        ...('invokeReturns' in operation ? { invokeReturns: operation.invokeReturns as Json } : {}),
        ...('layerReturns' in operation ? { layerReturns: operation.layerReturns as Json } : {}),
      };
  }
}

/** Where and what an add operation registers, with its options made: `rawOptions` as they are, else the option keys it gives (none: no options argument). */
function registration(operation: AddOperation): Omit<RequestOf<'chain.add'>, 'op' | 'scope' | 'label'> {
  const options: Record<string, Json> = operation.rawOptions ?? {};
  if (operation.rawOptions === undefined) for (const key of OPTION_KEYS) if (operation[key] !== undefined) options[key] = operation[key];
  const handler: RequestOf<'chain.add'>['handler'] =
    'notAFunction' in operation && operation.notAFunction !== undefined
      ? { notAFunction: operation.notAFunction }
      : operation.reuse !== undefined
        ? { reuse: operation.reuse }
        : {
            steps: operation.steps,
            ...defined('fnName', operation.fnName),
            ...('async' in operation ? defined('async', operation.async) : {}),
            ...('finally' in operation ? defined('finally', operation.finally) : {}),
            ...('returns' in operation ? defined('returns', operation.returns) : {}),
          };
  return {
    phase: operation.phase,
    ...defined('stage', operation.stage),
    ...defined('target', operation.target),
    handler,
    ...(operation.rawOptions !== undefined || Object.keys(options).length > 0 ? { options } : {}),
  };
}

/** `{ [key]: value }`, or nothing when the value is undefined (the protocol's messages have no undefined). */
export function defined<TKey extends string, TValue>(key: TKey, value: TValue | undefined): Partial<Record<TKey, TValue>> {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<TKey, TValue>>;
}
