/**
 * A journal in memory and the step runner over it (MW-240, MW-241, MW-248):
 * for tests, the spec's cases and a framework's own experiments. A test
 * simulates a process that dies by killing its runner, then resumes the run
 * with a new runner on the same journal. Values are kept as JSON text, as an
 * engine's journal keeps them, so what a replay reads is what JSON gives back.
 *
 * @packageDocumentation
 */
import { invalidDurableOption, replayDiverged, type JournalPosition } from './errors';
import type { JsonValue, StepAttempt, StepRunner, WaitRequest, WaitSender } from './types';

/** One entry of a run's journal, as {@link InMemoryJournal.entries} shows it. */
export type JournalEntry =
  | {
      /** A finished step. */
      readonly kind: 'step';
      /** The step's name. */
      readonly name: string;
      /** The value it recorded. */
      readonly value: JsonValue;
      /** How many times its function started (more than 1 when a process died during it). */
      readonly attempts: number;
    }
  | {
      /** A wait, answered or not. */
      readonly kind: 'wait';
      /** The wait's name. */
      readonly name: string;
      /** What it asks. */
      readonly request: JsonValue;
      /** True once a value was sent to it. */
      readonly answered: boolean;
      /** The value sent; `null` while unanswered. */
      readonly value: JsonValue;
    };

/** What the journal keeps of one entry: its values as JSON text. */
type StoredEntry =
  | { readonly kind: 'step'; readonly name: string; readonly value: string; readonly attempts: number }
  | { readonly kind: 'wait'; readonly name: string; readonly request: string; value: string | undefined };

/** One run's part of the journal. */
interface RunJournal {
  readonly entries: StoredEntry[];
  /** The step begun at the journal's end and not finished: its name and how many times it started. */
  unfinished: { readonly name: string; readonly starts: number } | undefined;
  /** Values sent to waits the run has not reached yet. */
  readonly early: Map<string, string>;
  /** Who is blocked on a wait of this run, by wait name. */
  readonly waiting: Map<string, Set<(value: string) => void>>;
}

/** The JSON text of a value a step or wait keeps. */
function toText(value: JsonValue): string {
  return JSON.stringify(value);
}

/** A fresh value from JSON text: JSON.parse makes `__proto__` an own key, so the copy is plain data. */
function fromText(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}

/**
 * Journals of durable runs, kept in memory, by run id; the {@link WaitSender}
 * of their waits.
 *
 * @example
 * ```ts
 * const journal = new InMemoryJournal();
 * const first = journal.runner('run-1');
 * await first.run('greet', async () => 'hello');
 * const second = journal.runner('run-1'); // a new process resuming the run
 * await second.run('greet', async () => 'never called'); // 'hello'
 * ```
 */
export class InMemoryJournal implements WaitSender {
  /**
   * A runner of run `runId` over this journal, starting at the journal's first
   * entry: a new process resuming the run (kill the old one's runner first).
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `runId` is not a non-empty string.
   */
  runner(runId: string): InMemoryStepRunner {
    if (typeof runId !== 'string' || runId.length === 0)
      throw invalidDurableOption('InMemoryJournal.runner', 'runId must be a non-empty string', runId);
    return new InMemoryStepRunner(this, runId);
  }

  /** Delivers `value` to the wait `name` of run `runId`, now or when the run reaches it; a second value for one wait is ignored. */
  send(runId: string, name: string, value: JsonValue): Promise<void> {
    const run = runJournal(this, runId);
    const text = toText(value);
    const entry = run.entries.find((stored) => stored.kind === 'wait' && stored.name === name);
    if (entry?.kind === 'wait') {
      if (entry.value !== undefined) return Promise.resolve();
      entry.value = text;
      for (const wake of run.waiting.get(name) ?? []) wake(text);
      run.waiting.delete(name);
    } else if (!run.early.has(name)) {
      run.early.set(name, text);
    }
    return Promise.resolve();
  }

  /** The journal of run `runId`, oldest first, as fresh frozen copies (empty for a run never started). */
  entries(runId: string): readonly JournalEntry[] {
    const run = runsOf(this).get(runId);
    if (run === undefined) return Object.freeze([]);
    return Object.freeze(run.entries.map((entry) => Object.freeze(showEntry(entry))));
  }

  /** The waits of run `runId` that have no value yet, oldest first: what an approval UI lists. */
  waiting(runId: string): readonly WaitRequest[] {
    const run = runsOf(this).get(runId);
    if (run === undefined) return Object.freeze([]);
    const open = run.entries.filter((entry) => entry.kind === 'wait' && entry.value === undefined);
    return Object.freeze(
      open.map((entry) => Object.freeze({ name: entry.name, request: entry.kind === 'wait' ? fromText(entry.request) : null })),
    );
  }
}

/** The runs of each journal, kept out of the class so its runners reach them and its users do not. */
const journals = new WeakMap<InMemoryJournal, Map<string, RunJournal>>();

function runsOf(journal: InMemoryJournal): Map<string, RunJournal> {
  let runs = journals.get(journal);
  if (runs === undefined) {
    runs = new Map();
    journals.set(journal, runs);
  }
  return runs;
}

/** The journal of one run, made on first use. */
function runJournal(journal: InMemoryJournal, runId: string): RunJournal {
  const runs = runsOf(journal);
  let run = runs.get(runId);
  if (run === undefined) {
    run = { entries: [], unfinished: undefined, early: new Map(), waiting: new Map() };
    runs.set(runId, run);
  }
  return run;
}

function showEntry(entry: StoredEntry): JournalEntry {
  if (entry.kind === 'step') return { kind: 'step', name: entry.name, value: fromText(entry.value), attempts: entry.attempts };
  return {
    kind: 'wait',
    name: entry.name,
    request: fromText(entry.request),
    answered: entry.value !== undefined,
    value: entry.value === undefined ? null : fromText(entry.value),
  };
}

/** Thrown by a killed runner's calls, and by its steps and waits that were still going: its process is gone. */
export class RunnerKilledError extends Error {
  /** Creates the error for run `runId`. */
  constructor(runId: string) {
    super(`The runner of durable run "${runId}" was killed, as if its process had died; resume the run with journal.runner("${runId}").`);
    this.name = 'RunnerKilledError';
  }
}

/**
 * The {@link StepRunner} of one process of a run over an {@link InMemoryJournal}
 * (MW-240, MW-241): it replays the journal's entries in order, then records.
 * `kill()` makes it behave as a process that died: nothing more is recorded.
 */
export class InMemoryStepRunner implements StepRunner {
  /** The run's id. */
  readonly runId: string;
  readonly #journal: InMemoryJournal;
  #position = 0;
  #killed = false;
  readonly #onKill = new Set<() => void>();

  /** A runner of `runId` over `journal` (see {@link InMemoryJournal.runner}). */
  constructor(journal: InMemoryJournal, runId: string) {
    this.#journal = journal;
    this.runId = runId;
  }

  /** True once {@link InMemoryStepRunner.kill} was called. */
  get killed(): boolean {
    return this.#killed;
  }

  /** Stops this runner as a process that dies: a step going on records nothing, a wait never resolves here, every later call rejects. */
  kill(): void {
    this.#killed = true;
    for (const stop of this.#onKill) stop();
    this.#onKill.clear();
  }

  /**
   * Runs the step `name` (see {@link StepRunner.run}).
   *
   * @throws RunnerKilledError once killed. MiddlewareError `ERR_REPLAY_DIVERGED` when the journal holds another entry here.
   */
  async run<T extends JsonValue>(name: string, fn: (attempt: StepAttempt) => Promise<T>): Promise<T> {
    this.#alive();
    const run = runJournal(this.#journal, this.runId);
    const index = this.#take({ kind: 'step', name });
    const entry = run.entries[index];
    if (entry?.kind === 'step') return fromText(entry.value) as T;
    const starts = run.unfinished?.name === name ? run.unfinished.starts + 1 : 1;
    run.unfinished = { name, starts };
    const value = await this.#unlessKilled(fn(Object.freeze({ attempt: starts })));
    this.#alive();
    run.entries.push({ kind: 'step', name, value: toText(value), attempts: starts });
    run.unfinished = undefined;
    return fromText(toText(value)) as T;
  }

  /**
   * Waits for the value of the wait `name` (see {@link StepRunner.wait}).
   *
   * @throws RunnerKilledError once killed. MiddlewareError `ERR_REPLAY_DIVERGED` when the journal holds another entry here.
   */
  async wait(name: string, request: JsonValue): Promise<JsonValue> {
    this.#alive();
    const run = runJournal(this.#journal, this.runId);
    const index = this.#take({ kind: 'wait', name });
    let entry = run.entries[index];
    if (entry === undefined) {
      const early = run.early.get(name);
      run.early.delete(name);
      entry = { kind: 'wait', name, request: toText(request), value: early };
      run.entries.push(entry);
    }
    if (entry.kind === 'wait' && entry.value !== undefined) return fromText(entry.value);
    const text = await this.#unlessKilled(
      new Promise<string>((resolve) => {
        const waiters = run.waiting.get(name) ?? new Set();
        waiters.add(resolve);
        run.waiting.set(name, waiters);
      }),
    );
    return fromText(text);
  }

  /** Claims the next journal position for `asked`, checking the entry there (if any) is the same step or wait. */
  #take(asked: JournalPosition): number {
    const run = runJournal(this.#journal, this.runId);
    const index = this.#position;
    const entry = run.entries[index];
    if (entry !== undefined && (entry.kind !== asked.kind || entry.name !== asked.name)) {
      throw replayDiverged(this.runId, index, { kind: entry.kind, name: entry.name }, asked);
    }
    this.#position = index + 1;
    return index;
  }

  #alive(): void {
    if (this.#killed) throw new RunnerKilledError(this.runId);
  }

  /** `promise`, or a rejection with {@link RunnerKilledError} as soon as the runner is killed. */
  #unlessKilled<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const stop = (): void => {
        reject(new RunnerKilledError(this.runId));
      };
      this.#onKill.add(stop);
      promise.then(
        (value) => {
          this.#onKill.delete(stop);
          resolve(value);
        },
        (error: unknown) => {
          this.#onKill.delete(stop);
          reject(error);
        },
      );
    });
  }
}
