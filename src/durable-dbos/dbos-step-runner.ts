/**
 * The step contract over DBOS Transact: each step of a durable run is one
 * `DBOS.runStep` of the workflow the run is, and each wait is a DBOS message
 * the workflow receives with `DBOS.recv`. DBOS journals both in its system
 * database (Postgres); a workflow started again after its process died
 * replays them, and DBOS hands a workflow to one process at a time.
 *
 * @packageDocumentation
 */
import { DBOS, Error as DbosErrors } from '@dbos-inc/dbos-sdk';
import type { JsonValue, StepRunner } from '../durable/index';
import { toJsonValue } from '../agent/values/json-value';
import { invalidDurableOption, journalCorrupt, replayDiverged, type JournalPosition } from '../durable/errors';
import { isObject } from '../util/is-object';
import { ownEntry } from '../util/own-entry';

/** The workflow event that shows the wait a run is blocked on (`{ name, request }`), and `null` when it waits for nothing. */
export const WAIT_EVENT = 'staged-middleware.wait';

/** The DBOS step name of a wait: a step of its own before the message, so a replay that waits elsewhere diverges at it. */
const WAIT_STEP_PREFIX = 'wait:';

/** How long one `DBOS.recv` blocks before the wait receives again: a day, so a run can wait for weeks in a few journal entries. */
const DEFAULT_RECEIVE_SECONDS = 86_400;

/** Options of {@link dbosStepRunner}. */
export interface DbosStepRunnerOptions {
  /** How long, in seconds, one receive of a wait blocks before it receives again (each receive is one journal entry). Default: 86,400 (a day). */
  readonly receiveSeconds?: number;
}

/**
 * The step runner of the DBOS workflow this is called in: its `runId` is the
 * workflow id; `run(name, fn)` is `DBOS.runStep(fn, { name })` (no DBOS
 * retries: a step fails only when its process does, and the library's
 * `retry` middleware is the one retry layer); `wait(name, request)` records
 * the step `wait:<name>` holding the request, sets the workflow event
 * {@link WAIT_EVENT} to `{ name, request }` for whoever answers, receives the
 * answer on the topic `name` (see `dbosWaitSender`), and clears the event.
 * A replay whose step differs from DBOS's journal at the same position
 * fails with `ERR_REPLAY_DIVERGED` naming both.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` outside a DBOS workflow, or for a `receiveSeconds` that is not a positive number.
 * @example
 * ```ts
 * const support = DBOS.registerWorkflow((question: string) => durableAgent(agent, dbosStepRunner()).invoke(question), { name: 'support' });
 * ```
 */
export function dbosStepRunner(options: DbosStepRunnerOptions = {}): StepRunner {
  const receiveSeconds = options.receiveSeconds ?? DEFAULT_RECEIVE_SECONDS;
  if (typeof receiveSeconds !== 'number' || !(receiveSeconds > 0))
    throw invalidDurableOption('dbosStepRunner', 'receiveSeconds must be a positive number of seconds', receiveSeconds);
  const runId = DBOS.workflowID;
  if (runId === undefined || !DBOS.isInWorkflow())
    throw invalidDurableOption(
      'dbosStepRunner',
      'call it inside a DBOS workflow (a function registered with DBOS.registerWorkflow), whose id is the run id',
      runId,
    );

  return Object.freeze({
    runId,
    async run<T extends JsonValue>(name: string, fn: (attempt: { readonly attempt: number }) => Promise<T>): Promise<T> {
      try {
        return await DBOS.runStep(() => fn({ attempt: DBOS.stepStatus?.currentAttempt ?? 1 }), { name });
      } catch (error) {
        throw await divergence(runId, error, { kind: 'step', name });
      }
    },
    async wait(name: string, request: JsonValue): Promise<JsonValue> {
      try {
        await DBOS.runStep(() => Promise.resolve(request), { name: `${WAIT_STEP_PREFIX}${name}` });
        await DBOS.setEvent(WAIT_EVENT, { name, request });
        let message: unknown = null;
        while (message === null) message = await DBOS.recv<unknown>(name, { timeoutSeconds: receiveSeconds });
        await DBOS.setEvent(WAIT_EVENT, null);
        return answerOf(runId, name, message);
      } catch (error) {
        throw await divergence(runId, error, { kind: 'wait', name });
      }
    },
  } satisfies StepRunner);
}

/** The message a wait receives: the answer, wrapped so that a JSON `null` answer is not DBOS's "nothing received yet". */
export interface Received {
  /** The answer. */
  readonly value: JsonValue;
}

/** `error` as `ERR_REPLAY_DIVERGED` when it is DBOS's divergence (naming the journal's entry there), else `error` itself. */
async function divergence(runId: string, error: unknown, asked: JournalPosition): Promise<unknown> {
  // DBOS's own error for a replay that meets another function than the one it journaled at that position.
  if (!(error instanceof DbosErrors.DBOSUnexpectedStepError)) return error;
  const steps = await DBOS.listWorkflowSteps(runId);
  const recorded = steps?.find((step) => step.functionID === error.stepID)?.name;
  return replayDiverged(runId, error.stepID, recorded === undefined ? undefined : positionOf(recorded), asked);
}

/** A DBOS function name as a journal position: `wait:<name>` is a wait, anything else a step. */
function positionOf(recorded: string): JournalPosition {
  return recorded.startsWith(WAIT_STEP_PREFIX)
    ? { kind: 'wait', name: recorded.slice(WAIT_STEP_PREFIX.length) }
    : { kind: 'step', name: recorded };
}

/**
 * The answer a wait received: the `value` of the message `dbosWaitSender` sent,
 * copied as plain data (`__proto__` an ordinary key), since it was read from the database.
 *
 * @throws MiddlewareError `ERR_JOURNAL_CORRUPT` for a message of another form (sent with `DBOS.send` directly, say).
 */
function answerOf(runId: string, name: string, message: unknown): JsonValue {
  const copy = toJsonValue(message, 'the message');
  if (!copy.ok || !isObject(copy.json) || !Object.hasOwn(copy.json, 'value'))
    throw journalCorrupt(runId, `message to the wait "${name}"`, 'it is not { value } as dbosWaitSender sends', message);
  return ownEntry(copy.json, 'value') as JsonValue;
}
