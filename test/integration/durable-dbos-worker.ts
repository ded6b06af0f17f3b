/**
 * One worker process of the DBOS durable-run tests, started by them as
 * `node --import tsx test/integration/durable-dbos-worker.ts <JSON options>`:
 * it launches DBOS on `url`, runs (or resumes) the durable agent run `runId`
 * and prints one JSON line with the run's result and history. Every side
 * effect of the run (a model call's start and end, a tool's effect with its
 * idempotency key) is appended to the file `effects` as a JSON line naming
 * the process `label`, so the tests count what ran where. With `kill`, the
 * process kills itself with SIGKILL at that point:
 *
 * - `modelStream`: in the second model call, after its first streamed text;
 * - `beforeTools`: after the first model step, when the first tool call begins;
 * - `toolEffect`: inside the first tool, right after its side effect.
 *
 * With `extraStep`, the workflow runs a step of its own before the agent's, as
 * changed code would; a failed run prints `{ error: { name, code, message } }`.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { appendFileSync } from 'node:fs';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage, type Message, type Model, type ModelStreamEvent } from '../../src/agent/index';
import { durableAgent } from '../../src/durable/index';
import { registerDurableWorkflow } from '../../src/durable-dbos/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';

/** What the tests pass. */
export interface WorkerOptions {
  readonly url: string;
  readonly runId: string;
  readonly label: string;
  readonly effects: string;
  readonly kill?: 'modelStream' | 'beforeTools' | 'toolEffect';
  readonly extraStep?: boolean;
}

/** One line of the effects file. */
export interface Effect {
  readonly process: string;
  readonly runId: string;
  readonly what: string;
  readonly key?: string;
}

/** What the worker prints when the run ends. */
export interface WorkerOutcome {
  readonly result: unknown;
  readonly messages: readonly Message[];
}

const options = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;

function effect(what: string, key?: string): void {
  const line: Effect =
    key === undefined
      ? { process: options.label, runId: options.runId, what }
      : { process: options.label, runId: options.runId, what, key };
  appendFileSync(options.effects, `${JSON.stringify(line)}\n`);
}

function kill(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: killed');
}

const TURNS = [
  toolUseTurn([{ name: 'lookup_order', input: { orderId: 'A-1042' }, toolUseId: 'call-1' }], { text: 'Let me look that up.' }),
  toolUseTurn([{ name: 'refund_order', input: { orderId: 'A-1042', amount: 25 }, toolUseId: 'call-2' }], {
    text: 'The parcel is lost: I will refund it once a human approves.',
  }),
  textTurn('Order A-1042 is refunded: 25 EUR are on their way back to you.'),
];

/**
 * The scripted conversation, picked by the history the model is sent (the
 * number of assistant messages in it), not by how often this process called
 * it: a resumed process calls the model only for the steps its journal lacks.
 */
const model: Model = {
  async *stream(request, callOptions): AsyncGenerator<ModelStreamEvent, void, undefined> {
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    effect(`model:${String(turn + 1)}:start`);
    for await (const event of new ScriptedModel([TURNS[turn] ?? textTurn('(script exhausted)')]).stream(request, callOptions)) {
      yield event;
      if (options.kill === 'modelStream' && turn === 1 && event.type === 'textDelta') kill();
    }
    effect(`model:${String(turn + 1)}:end`);
  },
};

function makeAgent(): Agent {
  const registry = new MiddlewareRegistry();
  registry.add(ExecuteToolStage.Input, function killBeforeTools(context) {
    if (options.kill === 'beforeTools') kill();
    return context;
  });
  const lookup = new ScriptedTool({
    name: 'lookup_order',
    respond: (_input, context) => {
      effect('tool:lookup_order', context.idempotencyKey);
      if (options.kill === 'toolEffect') kill();
      return { orderId: 'A-1042', status: 'lost in transit' };
    },
  });
  const refund = new ScriptedTool({
    name: 'refund_order',
    respond: (input, context) => {
      const { response } = context.interrupt({ name: 'approve', reason: { refund: input } });
      effect('tool:refund_order', context.idempotencyKey);
      return (response as { approved?: unknown } | null)?.approved === true ? 'refunded 25 EUR' : 'refund declined';
    },
  });
  return new Agent({ model, tools: [lookup, refund], registry, systemPrompt: 'You are a shop assistant.' });
}

const runs = registerDurableWorkflow('durable-dbos-test', async (runner, input: string): Promise<WorkerOutcome> => {
  if (options.extraStep === true) await runner.run('extra', () => Promise.resolve('extra'));
  const agent = makeAgent();
  const result = await durableAgent(agent, runner).invoke(input);
  return { result, messages: agent.messages };
});

// A pending run goes back on DBOS's queue of its application, which any process of that application takes work
// from: an application (with its own version name, as DBOS asks) and an executor per run keep the tests' runs,
// which go at once, apart.
DBOS.setConfig({
  name: `durable-dbos-test-${options.runId}`,
  systemDatabaseUrl: options.url,
  applicationVersion: `test-${options.runId}`,
  executorID: `executor-${options.runId}`,
  logLevel: 'error',
});
await DBOS.launch();
try {
  const outcome = await runs.run(options.runId, 'My parcel A-1042 never arrived. Refund it, please.');
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
} catch (error) {
  const { name, code, message } = error as { name: string; code?: string; message: string };
  process.stdout.write(`${JSON.stringify({ error: { name, code, message } })}\n`);
} finally {
  await DBOS.shutdown();
}
