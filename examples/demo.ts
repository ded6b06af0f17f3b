/**
 * `npm run demo`: the reference agent, a scripted model (no network, no API
 * key) and five middlewares, with a timeline of everything that ran.
 *
 *   npm run demo                 coloured timeline (plain when NO_COLOR is set or stdout is not a terminal)
 *   npm run demo -- --json       the same timeline as JSON lines
 *   npm run demo -- --explain    the resolved chain of each stage
 *   npm run demo -- --hitl       a human approval across two processes (examples/hitl.ts)
 *   npm run demo -- --long       a conversation compacted mid-run and a sub-agent's answer (examples/long-run.ts)
 *   npm run demo -- --durable    a run on DBOS and Postgres that survives a killed process (examples/durable-dbos.ts)
 *
 * In your own code, import from 'staged-middleware' and 'staged-middleware/agent';
 * the demo imports the sources so it runs without a build.
 */
import { pathToFileURL } from 'node:url';
import { MiddlewareRegistry } from '../src/core/index';
import { Agent, AgentStreamStage, ExecuteToolStage, InvokeModelStage, TurnStage, type AgentResultEvent } from '../src/agent/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn, toolUseTurn } from '../src/testing/index';
import { runHitl } from './hitl';
import { runLongDemo } from './long-run';
import { renderEntry, timeline, type TimelineEntry } from './timeline';

/** How the demo prints. */
export interface DemoOptions {
  /** `pretty` (default), `json` or `explain`. */
  readonly mode: 'pretty' | 'json' | 'explain';
  /** ANSI colours in `pretty` mode. */
  readonly color: boolean;
  /** The clock the date middleware reads. */
  readonly now: () => Date;
  /** Receives each output line. */
  readonly write: (line: string) => void;
}

/** What the demo produced, for tests. */
export interface DemoOutcome {
  /** Every timeline entry, in order (empty in `explain` mode). */
  readonly entries: readonly TimelineEntry[];
  /** The agent's result (undefined in `explain` mode). */
  readonly result: AgentResultEvent | undefined;
  /** The final answer's text. */
  readonly answer: string;
  /** The system prompt the model received on each call. */
  readonly systemPrompts: readonly string[];
}

const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;

/** Registers the demo's middlewares on a fresh registry. */
export function demoRegistry(now: () => Date): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();

  // 1. Input: tell the model today's date (the clock is injected so tests are deterministic).
  registry.add(InvokeModelStage.Input, function addDate(context) {
    const today = now().toISOString().slice(0, 10);
    return { ...context, systemPrompt: [...context.systemPrompt, { text: `Today's date is ${today}.` }] };
  });

  // 2. Wrap: retry a failed model call once. (A production retry must also handle a failure after some events were
  //    already streamed; staged-middleware/middleware has one. This inline one keeps the demo self-contained.)
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

  // 3. Wrap: block dangerous tools by short-circuit: the tool never runs, the model hears why.
  registry.add(ExecuteToolStage.Wrap, async function* toolGuard(context, next) {
    if (context.toolUse.name === 'delete_files') {
      yield {
        type: 'toolResult',
        toolResult: {
          type: 'toolResult',
          toolUseId: context.toolUse.toolUseId,
          name: context.toolUse.name,
          status: 'error',
          content: [{ type: 'text', text: 'Blocked by policy: delete_files needs a human.' }],
        },
      };
      return;
    }
    yield* next();
  });

  // 4. Output: redact e-mail addresses from what the model says (and so from the history).
  registry.add(InvokeModelStage.Output, function redactEmail(result) {
    return result.update((draft) => {
      for (const block of draft.message.content) if (block.type === 'text') block.text = block.text.replace(EMAIL, '[email redacted]');
    });
  });

  return registry;
}

/** The scripted conversation: one model failure, a turn with two tool calls, the answer. */
function demoModel(): ScriptedModel {
  return new ScriptedModel([
    failingTurn(new Error('503 Service Unavailable (scripted)')),
    toolUseTurn(
      [
        { name: 'lookup_order', input: { orderId: 'A-1042' }, toolUseId: 'call-1' },
        { name: 'delete_files', input: { path: '/var/orders/old' }, toolUseId: 'call-2' },
      ],
      { text: 'Let me look up the order and tidy the old files.', usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 } },
    ),
    textTurn(
      'Order A-1042 shipped on 2026-11-20 and arrives Tuesday. I could not delete the old files: that needs a human. Questions? Write to orders@shop.example.',
      {
        usage: { inputTokens: 210, outputTokens: 40, totalTokens: 250 },
      },
    ),
  ]);
}

/** Runs the demo, writing lines through `options.write`. */
export async function runDemo(options: DemoOptions): Promise<DemoOutcome> {
  const registry = demoRegistry(options.now);
  const model = demoModel();
  const tools = [
    new ScriptedTool({
      name: 'lookup_order',
      description: 'Looks up an order by id.',
      outcomes: [{ value: { orderId: 'A-1042', status: 'shipped', shippedOn: '2026-11-20', arrives: 'Tuesday' } }],
    }),
    new ScriptedTool({ name: 'delete_files', description: 'Deletes files under a path.', outcomes: [{ value: 'deleted' }] }),
  ];

  if (options.mode === 'explain') {
    for (const stage of [AgentStreamStage, InvokeModelStage, ExecuteToolStage, TurnStage]) {
      options.write(registry.explain(stage));
      options.write('');
    }
    return { entries: [], result: undefined, answer: '', systemPrompts: [] };
  }

  const entries: TimelineEntry[] = [];
  registry.instrument(
    timeline((entry) => {
      entries.push(entry);
      options.write(options.mode === 'json' ? JSON.stringify(entry) : renderEntry(entry, options.color));
    }),
  );
  const agent = new Agent({ model, tools, registry, systemPrompt: 'You are a helpful shop assistant.' });
  const result = await agent.invoke('Where is my order A-1042? And please delete the old order files.');
  const answer = (result.message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
  if (options.mode === 'json') options.write(JSON.stringify({ kind: 'answer', stopReason: result.stopReason, text: answer }));
  else {
    options.write('');
    options.write(`${options.color ? '\u001b[1m' : ''}Answer (${result.stopReason}):${options.color ? '\u001b[0m' : ''} ${answer}`);
  }
  return { entries, result, answer, systemPrompts: model.calls.map((call) => call.request.systemPrompt) };
}

/** The command line: picks the mode from `argv` and colours from the environment. */
export async function main(
  argv: readonly string[],
  environment: Readonly<Record<string, string | undefined>>,
  isTTY: boolean,
  write: (line: string) => void,
): Promise<DemoOutcome | undefined> {
  if (argv.includes('--hitl')) {
    await runHitl({ write });
    return undefined;
  }
  if (argv.includes('--durable')) {
    // Loaded only here: the other modes never load DBOS.
    const { runDurableDemo } = await import('./durable-dbos');
    await runDurableDemo({ write, environment });
    return undefined;
  }
  const color = isTTY && (environment.NO_COLOR === undefined || environment.NO_COLOR === '');
  if (argv.includes('--long')) {
    await runLongDemo({ color, write });
    return undefined;
  }
  const mode = argv.includes('--json') ? 'json' : argv.includes('--explain') ? 'explain' : 'pretty';
  return runDemo({ mode, color, now: () => new Date(), write });
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main(process.argv.slice(2), process.env, process.stdout.isTTY, (line) => process.stdout.write(`${line}\n`)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
