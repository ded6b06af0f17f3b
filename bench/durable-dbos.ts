/**
 * `npx tsx bench/durable-dbos.ts`: what the durable layer costs per step on
 * DBOS Transact, over DBOS's bare step, in one run. Not part of
 * `npm run bench` (it needs Postgres: an embedded one from npm is started, or
 * `DATABASE_URL` is used). Both sides run the same model call, one
 * InvokeModelStage invoke of a scripted model streaming `EVENTS` events, as
 * `STEPS` journaled steps of one DBOS workflow per round:
 *
 * - baseline: each invoke inside `DBOS.runStep`, whose value is the events
 *   (what an adapter without this library journals);
 * - ours: each invoke with `durableSteps(dbosStepRunner())` registered, which
 *   makes the step itself (its name, its record, the JSON form of each event).
 *
 * Rounds alternate the two sides; the figure is the median of the per-round
 * ratios, and the overhead per step is the median difference divided by `STEPS`.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { MiddlewareRegistry } from '../src/core/index';
import { createModelContext, InvokeModelStage, modelTerminal, type InvokeModelEvent } from '../src/agent/index';
import { durableSteps } from '../src/durable/index';
import { dbosStepRunner } from '../src/durable-dbos/index';
import { ScriptedModel, textTurn } from '../src/testing/index';
import { startPostgres } from '../examples/embedded-postgres';

const STEPS = 50;
const ROUNDS = 11;
const EVENTS_TEXT = Array.from({ length: 40 }, (_, index) => `word${String(index)}`).join(' ');

function modelCall(registry: MiddlewareRegistry): AsyncGenerator<InvokeModelEvent, unknown, undefined> {
  const model = new ScriptedModel([textTurn(EVENTS_TEXT)]);
  const context = createModelContext({ model, messages: [], systemPrompt: 'Answer.', toolSpecs: [], invocationState: {} });
  return registry.invoke(InvokeModelStage, context, modelTerminal);
}

async function drain(registry: MiddlewareRegistry): Promise<InvokeModelEvent[]> {
  const events: InvokeModelEvent[] = [];
  for await (const event of modelCall(registry)) events.push(event);
  return events;
}

const bare = DBOS.registerWorkflow(
  async (): Promise<number> => {
    const registry = new MiddlewareRegistry();
    let count = 0;
    for (let step = 1; step <= STEPS; step++) {
      const events = await DBOS.runStep(async () => JSON.parse(JSON.stringify(await drain(registry))) as unknown[], {
        name: `invokeModel:${String(step)}`,
      });
      count += events.length;
    }
    return count;
  },
  { name: 'bench-bare-steps' },
);

const layered = DBOS.registerWorkflow(
  async (): Promise<number> => {
    const registry = new MiddlewareRegistry();
    registry.use(durableSteps(dbosStepRunner()));
    let count = 0;
    for (let step = 1; step <= STEPS; step++) count += (await drain(registry)).length;
    return count;
  },
  { name: 'bench-durable-layer' },
);

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const server = await startPostgres();
try {
  const url = server.embedded ? server.url.replace(/\/postgres$/, '/bench_durable_dbos') : server.url;
  DBOS.setConfig({ name: 'bench-durable-dbos', systemDatabaseUrl: url, applicationVersion: 'bench', logLevel: 'error' });
  await DBOS.launch();
  const timed = async (workflow: () => Promise<number>, id: string): Promise<{ ms: number; events: number }> => {
    const started = performance.now();
    const events = await (await DBOS.startWorkflow(workflow, { workflowID: id })()).getResult();
    return { ms: performance.now() - started, events };
  };
  const prefix = `bench-${String(Date.now())}`;
  // A warm-up round of each: connections opened, code compiled.
  await timed(bare, `${prefix}-warm-bare`);
  await timed(layered, `${prefix}-warm-layer`);
  const ratios: number[] = [];
  const differences: number[] = [];
  const bareMs: number[] = [];
  const layerMs: number[] = [];
  let events = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const baseline = await timed(bare, `${prefix}-bare-${String(round)}`);
    const ours = await timed(layered, `${prefix}-layer-${String(round)}`);
    if (ours.events !== baseline.events)
      throw new Error(`the two sides streamed ${String(ours.events)} and ${String(baseline.events)} events`);
    events = ours.events / STEPS;
    ratios.push(ours.ms / baseline.ms);
    differences.push(ours.ms - baseline.ms);
    bareMs.push(baseline.ms);
    layerMs.push(ours.ms);
  }
  const perStepBare = median(bareMs) / STEPS;
  const perStepOurs = median(layerMs) / STEPS;
  process.stdout.write(
    [
      `durable layer on DBOS (${server.embedded ? 'embedded PostgreSQL' : 'DATABASE_URL'}, ${process.version}): ${String(ROUNDS)} rounds of ${String(STEPS)} steps, ${String(events)} events a step`,
      `  DBOS.runStep around the invoke: ${perStepBare.toFixed(3)} ms a step`,
      `  durableSteps(dbosStepRunner()):  ${perStepOurs.toFixed(3)} ms a step`,
      `  ratio ${median(ratios).toFixed(3)} (median of rounds; spread ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}), overhead ${(median(differences) / STEPS).toFixed(3)} ms a step`,
    ].join('\n') + '\n',
  );
} finally {
  await DBOS.shutdown();
  await server.stop();
}
