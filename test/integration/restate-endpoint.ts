/**
 * One Restate endpoint process of the durable-run tests, started by them as
 * `node --import tsx --import ./test/integration/with-resolvers.ts
 * test/integration/restate-endpoint.ts <JSON options>`: it serves the
 * workflow `agentRun` (the reference agent, a scripted model and two tools)
 * and the same agent in the service `agentService` on `options.port`. Every side effect appends a line to `options.effects`
 * (`<pid> model <turn>`, `<pid> charge <idempotency key>`, `<pid> refund
 * <idempotency key> <answer>`, and the service's `<pid> awakeable <wait> <id>`),
 * so counts survive a SIGKILL. With
 * `options.stopAt`, the first run to reach that point prints `reached
 * <point>` and never goes on, for the test to kill the process there:
 *
 * - `modelStream`: the first model call, after its first streamed event;
 * - `beforeTools`: after the first model step, before its tool's step starts;
 * - `toolEffect`: inside `charge`, after its side effect.
 */
import { appendFileSync } from 'node:fs';
import * as restate from '@restatedev/restate-sdk';
import type { Middleware } from '../../src/core/index';
import { Agent, ExecuteToolStage, type Model, type ModelRequest, type ModelStreamEvent, type ToolRunContext } from '../../src/agent/index';
import { agentWorkflowHandlers, runAgentInRestate } from '../../src/durable-restate/index';
import { ScriptedTool, textTurn, toolUseTurn, type ScriptedTurn } from '../../src/testing/index';

interface EndpointOptions {
  readonly port: number;
  readonly effects: string;
  readonly stopAt?: 'modelStream' | 'beforeTools' | 'toolEffect';
}

const options = JSON.parse(process.argv[2] ?? '{}') as EndpointOptions;

function effect(line: string): void {
  appendFileSync(options.effects, `${String(process.pid)} ${line}\n`);
}

/** Prints that the process reached `point` and never settles: the test kills the process here. */
function stopHere(point: string): Promise<never> {
  process.stdout.write(`reached ${point}\n`);
  return new Promise<never>(() => undefined);
}

/** The script: charge 5, then a refund that needs approval, then a final answer. */
const script: readonly ScriptedTurn[] = [
  toolUseTurn([{ name: 'charge', input: { amount: 5 }, toolUseId: 'use-charge' }], { text: 'Charging first.' }),
  toolUseTurn([{ name: 'refund', input: { amount: 2 }, toolUseId: 'use-refund' }]),
  textTurn('Charged 5 and refunded 2.'),
];

/** Answers call N of a run with turn N, N counted from the history (a replayed run never calls it for turns it finished). */
const model: Model = {
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    effect(`model ${String(turn)}`);
    let streamed = 0;
    for (const event of script[turn]?.events ?? []) {
      yield event;
      streamed += 1;
      if (options.stopAt === 'modelStream' && turn === 0 && streamed === 1) await stopHere('modelStream');
    }
  },
};

const charge = new ScriptedTool({
  name: 'charge',
  async respond(input: unknown, context: ToolRunContext) {
    effect(`charge ${String(context.idempotencyKey)}`);
    if (options.stopAt === 'toolEffect') await stopHere('toolEffect');
    return { charged: (input as { amount: number }).amount };
  },
});

const refund = new ScriptedTool({
  name: 'refund',
  respond(input: unknown, context: ToolRunContext) {
    const { response } = context.interrupt({ name: 'approve', reason: { refund: (input as { amount: number }).amount } });
    effect(`refund ${String(context.idempotencyKey)} ${JSON.stringify(response)}`);
    return response === 'yes' ? { refunded: (input as { amount: number }).amount } : 'Refund declined.';
  },
});

/** Stops before the first tool step starts: outside the durable layer, so the model step before it has finished. */
const stopBeforeTools: Middleware = {
  name: 'stopBeforeTools',
  setup(registrar) {
    registrar.add(ExecuteToolStage.Wrap, async function* stopBeforeTools(_context, next) {
      await stopHere('beforeTools');
      yield* next();
    });
  },
};

const agentRun = restate.workflow({
  name: 'agentRun',
  handlers: agentWorkflowHandlers({
    agent: () => new Agent({ model, tools: [charge, refund], systemPrompt: 'Handle payments.' }),
    runOptions: { use: options.stopAt === 'beforeTools' ? [stopBeforeTools] : [] },
  }),
});

/** The same agent in a service: its approval is an awakeable, whose id it writes to the effects file. */
const agentService = restate.service({
  name: 'agentService',
  handlers: {
    run: (ctx: restate.Context, input: string) =>
      runAgentInRestate(ctx, new Agent({ model, tools: [charge, refund], systemPrompt: 'Handle payments.' }), input, {
        publishWait: ({ name, awakeableId }) => {
          effect(`awakeable ${name} ${awakeableId}`);
          return Promise.resolve();
        },
      }),
  },
});

await restate.serve({ services: [agentRun, agentService], port: options.port });
process.stdout.write('listening\n');
