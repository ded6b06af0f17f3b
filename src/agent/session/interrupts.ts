import { brand, isBranded } from '../../util/brand';
import { interruptTooLate, invalidInterruptRequest, repeatedQuestion } from '../errors';
import type { Interrupt, InterruptAnswer, InterruptFunction, InterruptRequest } from '../types/tool';
import { isObject } from '../../util/is-object';
import { isNonEmptyString } from '../values/value-shapes';

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
  /** The first interrupt raised. */
  readonly interrupt: Interrupt;
  /** Every interrupt raised at once (frozen; more than one when several questions were asked together). */
  readonly interrupts: readonly Interrupt[];

  /** Creates the signal for one interrupt, or for several raised at once. */
  constructor(interrupts: Interrupt | readonly Interrupt[]) {
    const all: readonly Interrupt[] = Object.freeze(
      Array.isArray(interrupts) ? [...(interrupts as readonly Interrupt[])] : [interrupts as Interrupt],
    );
    const ids = all.map((interrupt) => `"${interrupt.id}"`).join(', ');
    const example = all.map((interrupt) => `"${interrupt.id}": response`).join(', ');
    super(
      `Interrupt${all.length === 1 ? '' : 's'} ${ids} ${all.length === 1 ? 'is' : 'are'} waiting for a response. Resume the agent with agent.resume({ ${example} }).`,
    );
    this.name = 'InterruptSignal';
    this.interrupt = all[0] as Interrupt;
    this.interrupts = all;
    brand(this, 'interrupt-signal');
  }

  /** True for an `InterruptSignal` created by any copy of this package in the realm; never for a lookalike, and it reads nothing of `value`. */
  static isInstance(value: unknown): value is InterruptSignal {
    return isBranded(value, 'interrupt-signal');
  }
}

/**
 * The deterministic id of an interrupt: `<stage name>:<tool-use id>:<name>`,
 * or `<stage name>:<name>` when there is no tool use (a question about the whole run).
 *
 * @example
 * ```ts
 * await agent.resume({ [interruptId('executeTool', 'tool-1', 'approve')]: true });
 * await agent.invoke('Go on', { interruptResponses: { [interruptId('agentStream', undefined, 'approve')]: 'yes' } });
 * ```
 */
export function interruptId(stage: string, toolUseId: string | undefined, name: string): string {
  return toolUseId === undefined ? `${stage}:${name}` : `${stage}:${toolUseId}:${name}`;
}

/** Where an `interrupt()` of a run finds responses, and whether it may still halt. */
export interface ResponseStore {
  /** The responses known, by interrupt id. */
  readonly responses: ReadonlyMap<string, unknown>;
  /** Why halting can no longer take effect (the run produced its result, or ended), or undefined while it can. */
  late(): string | undefined;
}

const NEVER_LATE = (): undefined => undefined;

/**
 * The `interrupt()` of one tool call (or, without a tool-use id, of a whole
 * run, for a framework's own loop). A stored response (given to a resume)
 * wins over one pre-supplied in the request; with neither, it throws an
 * {@link InterruptSignal} carrying the interrupt (frozen; its `reason` is the request's, shared).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when a request has no non-empty `name`, or two requests of one call share a name.
 * @example
 * ```ts
 * const interrupt = createInterrupt(ExecuteToolStage.name, 'call-1', new Map());
 * const { response } = interrupt({ name: 'approve', reason: 'Deletes files' });
 * ```
 */
export function createInterrupt(stage: string, toolUseId: string | undefined, stored: ReadonlyMap<string, unknown>): InterruptFunction {
  return interruptFor(stage, toolUseId, { responses: stored, late: NEVER_LATE });
}

/**
 * The `interrupt()` of one tool call or run, reading `store`; `raised`, when
 * given, learns of every signal it throws (so the run can tell its own from others).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a malformed request; `ERR_INTERRUPT_AFTER_RESULT` when it would
 *   halt while `store.late()` says halting can no longer take effect.
 */
export function interruptFor(
  stage: string,
  toolUseId: string | undefined,
  store: ResponseStore,
  raised?: (signal: InterruptSignal) => void,
): InterruptFunction {
  const where = toolUseId === undefined ? `of the ${stage} stage` : `of tool use "${toolUseId}"`;
  function interrupt(request: InterruptRequest): InterruptAnswer;
  function interrupt(requests: readonly InterruptRequest[]): readonly InterruptAnswer[];
  function interrupt(asked: InterruptRequest | readonly InterruptRequest[]): InterruptAnswer | readonly InterruptAnswer[] {
    const many = Array.isArray(asked);
    const requests = many ? (asked as readonly InterruptRequest[]) : [asked as InterruptRequest];
    const names = new Set<string>();
    const answers: InterruptAnswer[] = [];
    const missing: Interrupt[] = [];
    for (const request of requests) {
      if (!isObject(request) || !isNonEmptyString(request.name)) {
        throw invalidInterruptRequest(stage, where);
      }
      if (names.has(request.name)) {
        throw repeatedQuestion(stage, where, request.name);
      }
      names.add(request.name);
      const id = interruptId(stage, toolUseId, request.name);
      if (store.responses.has(id)) answers.push(Object.freeze({ response: store.responses.get(id) }));
      else if ('response' in request && request.response !== undefined) answers.push(Object.freeze({ response: request.response }));
      else missing.push(Object.freeze({ id, name: request.name, reason: request.reason }));
    }
    if (missing.length > 0) {
      const late = store.late();
      if (late !== undefined)
        throw interruptTooLate(
          stage,
          where,
          missing.map((interrupt) => interrupt.id),
          late,
        );
      const signal = new InterruptSignal(missing);
      raised?.(signal);
      throw signal;
    }
    return many ? Object.freeze(answers) : (answers[0] as InterruptAnswer);
  }
  return interrupt;
}
