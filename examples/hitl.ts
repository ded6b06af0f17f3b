/**
 * `npm run demo -- --hitl`: a human approval that outlives its process. The
 * run halts when the model asks to delete files, the agent's session is saved
 * to a file, and a second Node.js process, started afterwards, restores the
 * agent from that file, gives the human's answer and finishes the run.
 *
 * In your own code, import from 'staged-middleware/agent'; the demo imports
 * the sources so it runs without a build.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MiddlewareRegistry } from '../src/core/index';
import {
  Agent,
  ExecuteToolStage,
  FileSessionStore,
  InvokeModelStage,
  type AgentEvent,
  type AgentSnapshot,
  type SessionStore,
} from '../src/agent/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn, toolUseTurn, type ScriptedTurn } from '../src/testing/index';

/** How the human-in-the-loop demo prints. */
export interface HitlOptions {
  /** Receives each output line. */
  readonly write: (line: string) => void;
}

const SESSION = 'order-A-1042';

/** The demo's handlers: the model-call ones of the main demo, and an approval instead of a block for deleting files. */
function hitlRegistry(): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();
  registry.add(InvokeModelStage.Wrap, async function* retryOnce(_context, next) {
    for (let attempt = 1; ; attempt++) {
      try {
        yield* next();
        return;
      } catch (error) {
        if (attempt === 2) throw error;
      }
    }
  });
  // Ask a human before any delete; the run halts until someone answers, in this process or another.
  registry.add(ExecuteToolStage.Wrap, async function* approveDeletes(context, next) {
    if (context.toolUse.name !== 'delete_files') return yield* next();
    const { path } = context.toolUse.input as { path: string };
    const { response } = context.interrupt({ name: 'approve', reason: `Delete the files under ${path}?` });
    if (response === 'approved') return yield* next();
    yield {
      type: 'toolResult',
      toolResult: {
        type: 'toolResult',
        toolUseId: context.toolUse.toolUseId,
        name: context.toolUse.name,
        status: 'error',
        content: [{ type: 'text', text: 'A human refused.' }],
      },
    };
  });
  return registry;
}

/** An agent restored from (or starting) the session in `directory`, playing `turns`; each save is reported through `write`. */
async function hitlAgent(directory: string, turns: readonly ScriptedTurn[], write: (line: string) => void): Promise<Agent> {
  const files = new FileSessionStore({ directory, fs });
  const store: SessionStore = {
    load: (id) => files.load(id),
    save: async (id, snapshot: AgentSnapshot) => {
      await files.save(id, snapshot);
      const pending = snapshot.halted?.interrupts.length ?? 0;
      write(`  saved session "${id}": ${snapshot.messages.length} messages${pending > 0 ? `, ${pending} question pending` : ''}`);
    },
  };
  const tools = [
    new ScriptedTool({
      name: 'lookup_order',
      description: 'Looks up an order by id.',
      outcomes: [{ value: { orderId: 'A-1042', status: 'shipped', arrives: 'Tuesday' } }],
    }),
    new ScriptedTool({ name: 'delete_files', description: 'Deletes files under a path.', outcomes: [{ value: 'deleted 3 files' }] }),
  ];
  return Agent.fromSession({
    model: new ScriptedModel(turns),
    tools,
    registry: hitlRegistry(),
    systemPrompt: 'You are a helpful shop assistant.',
    session: { store, id: SESSION },
  });
}

/** One line for each event worth showing. */
function describe(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'toolResult': {
      const [block] = event.toolResult.content;
      return `  tool ${event.toolResult.toolUseId} ${event.toolResult.status}: ${block?.type === 'text' ? block.text : JSON.stringify(block?.json)}`;
    }
    case 'interrupt':
      return `  ? ${event.interrupt.id}: ${String(event.interrupt.reason)}`;
    case 'agentResult': {
      const text = (event.message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
      return `  ${event.stopReason === 'interrupt' ? 'halted, waiting for a human' : `answer (${event.stopReason}): ${text}`}`;
    }
    default:
      return undefined;
  }
}

/** The first process: runs until the approval halts the run, then starts the second one and prints what it prints. */
export async function runHitl(options: HitlOptions): Promise<void> {
  const { write } = options;
  const directory = mkdtempSync(join(tmpdir(), 'staged-middleware-hitl-'));
  try {
    write('process 1: Where is my order A-1042? And please delete the old order files.');
    const turns = [
      failingTurn(new Error('503 Service Unavailable (scripted)')),
      toolUseTurn(
        [
          { name: 'lookup_order', input: { orderId: 'A-1042' }, toolUseId: 'call-1' },
          { name: 'delete_files', input: { path: '/var/orders/old' }, toolUseId: 'call-2' },
        ],
        { text: 'Let me look up the order and tidy the old files.' },
      ),
    ];
    const agent = await hitlAgent(directory, turns, write);
    for await (const event of agent.stream('Where is my order A-1042? And please delete the old order files.')) {
      const line = describe(event);
      if (line !== undefined) write(line);
    }
    write('process 1 exits; process 2 starts from the saved session');
    const script = fileURLToPath(import.meta.url);
    const output = execFileSync(process.execPath, [...process.execArgv, script, '--hitl-resume', directory], { encoding: 'utf8' });
    for (const line of output.split('\n').slice(0, -1)) write(line);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The second process: restores the agent from the session, answers the question as the human did, and finishes. */
export async function resumeHitl(directory: string, write: (line: string) => void): Promise<void> {
  const agent = await hitlAgent(
    directory,
    [textTurn('Order A-1042 has shipped and arrives Tuesday. I deleted the old order files, as approved.')],
    write,
  );
  write(
    `process 2: restored ${agent.messages.length} messages; pending: ${agent.pendingInterrupts.map((interrupt) => interrupt.id).join(', ')}`,
  );
  const answers = Object.fromEntries(agent.pendingInterrupts.map((interrupt) => [interrupt.id, 'approved']));
  write(`  a human answers: ${JSON.stringify(answers)}`);
  for await (const event of agent.stream(undefined, { interruptResponses: answers })) {
    const line = describe(event);
    if (line !== undefined) write(line);
  }
}

const [entry, flag, directory] = process.argv.slice(1);
if (entry !== undefined && flag === '--hitl-resume' && directory !== undefined && import.meta.url === pathToFileURL(entry).href) {
  resumeHitl(directory, (line) => process.stdout.write(`${line}\n`)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
