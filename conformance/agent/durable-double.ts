/**
 * The durable runs of an agent case (`durable` of a run, MW-240 – MW-252):
 * one in-memory journal per case, a runner per process over it that dies
 * where the case says, answers sent to waits as the run reaches them, and
 * the journal as `expect.journal` states it.
 */
import { InMemoryJournal, type InMemoryStepRunner, type JsonValue, type StepRunner } from '../../src/durable/index';
import type { AgentCase } from '../cases/agent-case';
import { userError, type World } from './doubles';

/** The run id of every case's durable run. */
const RUN_ID = 'case';

/** What a durable run of a case asks for. */
type DurableRunSpec = NonNullable<AgentCase['runs'][number]['durable']>;

/** The durable side of one case: its journal, and the runner of the process running now. */
export class CaseJournal {
  readonly #journal = new InMemoryJournal();
  #runner: InMemoryStepRunner | undefined;

  /** True when `spec` starts another process than the last durable run's. */
  isNewProcess(world: World, spec: DurableRunSpec): boolean {
    return spec.process !== world.process;
  }

  /** The step runner of one run: the process's runner, killed where the case says, sending the case's answers to its waits. */
  runnerFor(world: World, spec: DurableRunSpec): StepRunner {
    if (spec.process !== world.process || this.#runner === undefined) {
      this.#runner?.kill();
      this.#runner = this.#journal.runner(RUN_ID);
      world.process = spec.process;
    }
    const runner = this.#runner;
    const journal = this.#journal;
    const killed = (): Error => world.errors.get('process killed') ?? userError(world, 'process killed');
    return {
      runId: RUN_ID,
      async run<T extends JsonValue>(name: string, fn: Parameters<StepRunner['run']>[1]): Promise<T> {
        const started = { live: false };
        try {
          const value = await runner.run(name, (attempt) => {
            started.live = true;
            const recorded = fn(attempt);
            // The process dies once the step's work has begun: it runs on, but nothing of it is recorded.
            if (name === spec.killIn) runner.kill();
            return recorded;
          });
          // A journal that gives back something other than what was recorded.
          return (!started.live && name === spec.corrupt ? { step: name } : value) as T;
        } catch (error) {
          if (runner.killed) throw killed();
          throw error;
        }
      },
      async wait(name: string, request: JsonValue): Promise<JsonValue> {
        world.observations.push(`wait ${name}`);
        const answers = spec.answers ?? {};
        if (Object.hasOwn(answers, name) && name !== spec.killIn) await journal.send(RUN_ID, name, answers[name] as JsonValue);
        const waiting = runner.wait(name, request);
        // The process dies while the run waits: the wait stays recorded, unanswered.
        if (name === spec.killIn) runner.kill();
        try {
          return await waiting;
        } catch (error) {
          if (runner.killed) throw killed();
          throw error;
        }
      },
    };
  }

  /** The journal as `expect.journal` states it. */
  entries(): string[] {
    return this.#journal.entries(RUN_ID).map((entry) => {
      if (entry.kind === 'step') return `step ${entry.name}${entry.attempts > 1 ? ` (attempts ${String(entry.attempts)})` : ''}`;
      return entry.answered ? `wait ${entry.name} = ${JSON.stringify(entry.value)}` : `wait ${entry.name} (unanswered)`;
    });
  }
}
