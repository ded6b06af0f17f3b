/**
 * What every message builder of the core shares: who a message is about
 * (stage, phase, handler), and the {@link MiddlewareError} it makes. The
 * builders are in `registration-messages.ts` (stages, `add`, bundles,
 * contributions, ordering) and `invoke-messages.ts` (options, layers,
 * handlers, state, abort); the codes and their rules are in `codes.ts`.
 *
 * @packageDocumentation
 */
import type { ErrorPhase } from './types';
import { MiddlewareError } from './errors';

/** Who a message is about. */
export interface ErrorSite {
  /** Stage name. */
  readonly stage: string;
  /** Phase or `'terminal'`. */
  readonly phase: ErrorPhase;
  /** Handler name (`'terminal'` for the terminal). */
  readonly handler: string;
}

/** The error a message builder makes: `culprit` names where it arose, `cause` what led to it. */
export function codedError(
  code: MiddlewareError['code'],
  culprit: { readonly [TKey in keyof ErrorSite]?: ErrorSite[TKey] | undefined },
  message: string,
  cause?: unknown,
): MiddlewareError {
  return new MiddlewareError({
    code,
    message,
    stage: culprit.stage,
    phase: culprit.phase,
    handler: culprit.handler,
    ...(cause === undefined ? {} : { cause }),
  });
}
