import { brand, isBranded } from '../util/brand';
import { invalidInterruptRequest } from './errors';
import type { Interrupt, InterruptFunction, InterruptRequest } from './tool-types';

/**
 * Thrown by `interrupt()` when no response is known: it travels through the
 * chain like any error (handlers that catch errors must rethrow it; check with
 * {@link InterruptSignal.isInstance}) and the agent halts with stop reason `'interrupt'`.
 *
 * Why a throw: the tool call cannot go on without the human's answer, and a
 * throw stops the handler, the inner layers and the tool at once, wherever
 * `interrupt()` was called.
 */
export class InterruptSignal extends Error {
  /** The interrupt raised. */
  readonly interrupt: Interrupt;

  /** Creates the signal for one interrupt. */
  constructor(interrupt: Interrupt) {
    super(`Interrupt "${interrupt.id}" is waiting for a response. Resume the agent with agent.resume({ "${interrupt.id}": response }).`);
    this.name = 'InterruptSignal';
    this.interrupt = interrupt;
    brand(this, 'interrupt-signal');
  }

  /** True for an `InterruptSignal` created by any copy of this package in the realm; never for a lookalike, and it reads nothing of `value`. */
  static isInstance(value: unknown): value is InterruptSignal {
    return isBranded(value, 'interrupt-signal');
  }
}

/**
 * The deterministic id of an interrupt: `<stage name>:<tool-use id>:<name>`.
 *
 * @example
 * ```ts
 * await agent.resume({ [interruptId('executeTool', 'tool-1', 'approve')]: true });
 * ```
 */
export function interruptId(stage: string, toolUseId: string, name: string): string {
  return `${stage}:${toolUseId}:${name}`;
}

/**
 * The `interrupt()` of one tool call. A stored response (given to a resume)
 * wins over one pre-supplied in the request; with neither, it throws an
 * {@link InterruptSignal} carrying the interrupt (frozen; its `reason` is the request's, shared).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when the request has no non-empty `name`.
 * @example
 * ```ts
 * const interrupt = createInterrupt(ExecuteToolStage.name, toolUse.toolUseId, new Map());
 * const { response } = interrupt({ name: 'approve', reason: 'Deletes files' });
 * ```
 */
export function createInterrupt(stage: string, toolUseId: string, stored: ReadonlyMap<string, unknown>): InterruptFunction {
  return function interrupt(request: InterruptRequest): { readonly response: unknown } {
    if (request === null || typeof request !== 'object' || typeof request.name !== 'string' || request.name.length === 0) {
      throw invalidInterruptRequest(stage, toolUseId);
    }
    const id = interruptId(stage, toolUseId, request.name);
    if (stored.has(id)) return Object.freeze({ response: stored.get(id) });
    if ('response' in request && request.response !== undefined) return Object.freeze({ response: request.response });
    throw new InterruptSignal(Object.freeze({ id, name: request.name, reason: request.reason }));
  };
}
