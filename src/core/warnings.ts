/**
 * The warnings of resolution: what a registry reports through
 * `RegistryOptions.onWarning` (by default on the console) when a chain
 * resolves but looks wrong (MW-043, MW-057), and the builders of their
 * messages. Unlike an error, a warning stops nothing: the chain runs as
 * resolved.
 *
 * @packageDocumentation
 */
import type { ChainEntry } from './chain';
import type { ErrorSite } from './errors';
import type { Phase } from './types';

/** A warning a registry reports through `RegistryOptions.onWarning`; `code` tells the kinds apart. */
export type MiddlewareWarning = UnknownIdWarning | DuplicateHandlerWarning;

/** An ordering constraint names an id that is registered nowhere (MW-043). */
export interface UnknownIdWarning {
  /** Stable code. */
  readonly code: 'WARN_UNKNOWN_ID';
  /** What happened and what to do. */
  readonly message: string;
  /** Stage name. */
  readonly stage: string;
  /** Phase. */
  readonly phase: Phase;
  /** The handler whose constraint names the unknown id. */
  readonly handler: string;
  /** The unknown id. */
  readonly id: string;
}

/** The same handler function is registered twice on one stage and phase, neither time with an id (MW-057). */
export interface DuplicateHandlerWarning {
  /** Stable code. */
  readonly code: 'WARN_DUPLICATE_HANDLER';
  /** What happened and what to do. */
  readonly message: string;
  /** Stage name. */
  readonly stage: string;
  /** Phase. */
  readonly phase: Phase;
  /** The name of its first registration in the chain. */
  readonly handler: string;
  /** Both places in the chain, first the outer (or earlier) one: how each was registered and its position. */
  readonly places: readonly [string, string];
}

/** The default of `RegistryOptions.onWarning`. */
export function warnOnConsole(warning: MiddlewareWarning): void {
  console.warn(`[staged-middleware] ${warning.code}: ${warning.message}`);
}

/** The warning of a constraint naming an id that no handler has. */
export function unknownId(site: ErrorSite & { readonly phase: Phase }, id: string, outside: boolean): MiddlewareWarning {
  return Object.freeze({
    code: 'WARN_UNKNOWN_ID',
    stage: site.stage,
    phase: site.phase,
    handler: site.handler,
    id,
    message: `The ${site.phase} handler "${site.handler}" of stage "${site.stage}" must run ${outside ? 'before' : 'after'} "${id}", but no handler has that id; the constraint is ignored. Check the id, or register that handler.`,
  });
}

/** Where a chain entry came from and where it runs, for {@link duplicateHandler}: `"retry" (registry.add, position 1)`. */
function placeOf(entry: ChainEntry): string {
  let how = 'registry.add';
  if (entry.source === 'invoke') how = "the invoke's use option";
  else if (entry.bundle !== undefined) how = `bundle "${entry.bundle}"`;
  if (entry.depth > 1) how += ` of an ancestor registry (${entry.depth} levels up)`;
  else if (entry.depth === 1) how += ' of the parent registry';
  return `"${entry.name}" (${how}, position ${entry.position + 1})`;
}

/** The warning of one handler function registered twice on a stage and phase, neither time with an id. */
export function duplicateHandler(stage: string, first: ChainEntry, second: ChainEntry): MiddlewareWarning {
  const places = Object.freeze([placeOf(first), placeOf(second)] as const);
  return Object.freeze({
    code: 'WARN_DUPLICATE_HANDLER',
    stage,
    phase: first.phase,
    handler: first.name,
    places,
    message: `The same ${first.phase} handler function of stage "${stage}" is registered twice, as ${places[0]} and as ${places[1]}, and runs at both places (a retry registered twice retries its own retries). Register it once; if both are meant, give each registration an id.`,
  });
}
