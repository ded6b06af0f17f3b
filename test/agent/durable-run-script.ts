/**
 * One half of a durable run, in a process of its own (run by
 * `durable-run.test.ts`): `halt <directory>` runs an agent with a file
 * session until it halts on an approval; `resume <directory>` creates the
 * agent from the session in a new process and resumes it. Each prints what it
 * saw as one JSON line.
 */
import { promises as fs } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage, FileSessionStore } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, type ScriptedTurn, textTurn, toolUseTurn } from '../../src/testing/index';

/** The agent both processes build: a guard asking to approve every refund, a file session, and the model's turns from `turns`. */
export function durableAgentOptions(directory: string, turns: readonly ScriptedTurn[]) {
  const registry = new MiddlewareRegistry();
  registry.add(ExecuteToolStage.Wrap, async function* approveRefunds(context, next) {
    const { response } = context.interrupt({ name: 'approve', reason: { refund: context.toolUse.input } });
    if (response === 'yes') yield* next();
    else
      yield {
        type: 'toolResult',
        toolResult: {
          type: 'toolResult',
          toolUseId: context.toolUse.toolUseId,
          name: context.toolUse.name,
          status: 'error',
          content: [{ type: 'text', text: 'Refused.' }],
        },
      };
  });
  const refund = new ScriptedTool({
    name: 'refund',
    respond: (input, context) => ({ refunded: input, by: context.invocationState.operator }),
  });
  return {
    model: new ScriptedModel(turns),
    tools: [refund],
    registry,
    session: { store: new FileSessionStore({ directory, fs }), id: 'order-42' },
  };
}

/** The model's turns: the refund request, then the answer. */
export const FIRST_TURNS = [
  toolUseTurn([{ name: 'refund', input: { amount: 30 }, toolUseId: 'r1' }], {
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  }),
];
export const LATER_TURNS = [textTurn('Refunded 30 EUR.', { usage: { inputTokens: 20, outputTokens: 4, totalTokens: 24 } })];

async function main(step: string, directory: string): Promise<void> {
  if (step === 'halt') {
    const agent = await Agent.fromSession(durableAgentOptions(directory, FIRST_TURNS));
    const result = await agent.invoke('Refund order 42.', { invocationState: { operator: 'ana' } });
    process.stdout.write(`${JSON.stringify({ pid: process.pid, stopReason: result.stopReason, interrupts: result.interrupts })}\n`);
    return;
  }
  const agent = await Agent.fromSession(durableAgentOptions(directory, LATER_TURNS));
  const pending = agent.pendingInterrupts;
  const result = await agent.resume({ 'executeTool:r1:approve': 'yes' });
  process.stdout.write(
    `${JSON.stringify({ pid: process.pid, pending, stopReason: result.stopReason, usage: agent.usage, messages: agent.messages })}\n`,
  );
}

const [entry, step, directory] = process.argv.slice(1);
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href && step !== undefined && directory !== undefined) {
  main(step, directory).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
