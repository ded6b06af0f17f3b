/**
 * The engine-neutral step contract of a durable run (MW-240, MW-241): what an
 * engine adapter implements (DBOS Transact, Restate, the in-memory runner) and
 * what the durable layer of the agent stages calls. An engine journals each
 * step's value; a run started again after its process died replays the
 * journal instead of calling the model or the tool again. Pure types.
 *
 * How the engines say it: a step is DBOS's `DBOS.runStep(fn, { name })` and
 * Restate's `ctx.run(name, fn)`; a wait is DBOS's `DBOS.recv(topic)` answered
 * by `DBOS.send(workflowId, value, topic)`, and Restate's durable promise
 * `ctx.promise(name)` resolved from outside; the run id is the workflow id.
 *
 * @packageDocumentation
 */

/** A value a journal keeps: what `JSON.stringify` writes and `JSON.parse` reads back unchanged. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What a step's function learns about the start it is. */
export interface StepAttempt {
  /**
   * Counts the starts of this step's function in this run from 1, starts in
   * processes that died before the step finished included (MW-248); an engine
   * that cannot tell gives 1 every time.
   */
  readonly attempt: number;
}

/** A question a durable wait holds, as the outside world reads it while the run waits (MW-241). */
export interface WaitRequest {
  /** The wait's name: the interrupt id (`executeTool:<tool-use id>:<name>`, `agentStream:<name>`). */
  readonly name: string;
  /** What the run asks, for whoever answers: the interrupt `{ id, name, reason }` in its JSON form. */
  readonly request: JsonValue;
}

/**
 * The engine side of one durable run (MW-240, MW-241): journaled steps and
 * durable waits, in one deterministic sequence. An adapter backs it with its
 * engine; `InMemoryStepRunner` keeps the journal in memory.
 *
 * Steps and waits are started one at a time: the caller never starts one while
 * another of the same run is unfinished, so the n-th call of a replay meets the
 * n-th entry of the journal.
 */
export interface StepRunner {
  /** The run's id, the same in every process that runs or resumes it (the engine's workflow id); tool calls' idempotency keys start with it. */
  readonly runId: string;

  /**
   * Runs `fn` as the journaled step `name` and resolves to its value. When the
   * journal holds no value for this position it calls `fn`, records the JSON
   * value `fn` resolves to and resolves to it; when the journal holds one it
   * resolves to the recorded value without calling `fn`. A throw of `fn`
   * records nothing: the step is unfinished, and the rejection reaches the
   * caller unchanged (an engine MAY retry first; the durable layer never lets
   * `fn` throw for a model or tool failure, MW-252).
   *
   * @throws MiddlewareError `ERR_REPLAY_DIVERGED` when the journal's entry at this position is not the step `name`
   *   (another step's name, or a wait), naming both.
   */
  run<T extends JsonValue>(name: string, fn: (attempt: StepAttempt) => Promise<T>): Promise<T>;

  /**
   * Waits durably for the value sent from outside to the wait `name` of this
   * run (see {@link WaitSender}) and resolves to it. The first time it
   * records the request so the outside world can read it, and blocks until a
   * value is sent (an engine MAY unload the run meanwhile, holding no process,
   * and resume it when the value arrives); when the journal holds the
   * received value it resolves to it at once.
   *
   * @throws MiddlewareError `ERR_REPLAY_DIVERGED` when the journal's entry at this position is not the wait `name`.
   */
  wait(name: string, request: JsonValue): Promise<JsonValue>;
}

/**
 * Answers a run's durable waits from outside the run (MW-241): an approval UI
 * or an API handler calls it with the run id and the wait's name. DBOS sends
 * with `DBOS.send(runId, value, name)`; Restate resolves the durable promise
 * `name` of workflow `runId`.
 */
export interface WaitSender {
  /**
   * Delivers `value` to the wait `name` of run `runId`, whether the run waits
   * already or reaches the wait later; a second value for the same wait is ignored.
   */
  send(runId: string, name: string, value: JsonValue): Promise<void>;
}
