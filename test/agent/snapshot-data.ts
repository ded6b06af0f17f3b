/**
 * The snapshot of an agent halted in a turn of two tool uses, as JSON to change
 * part by part, and what restoring a changed copy gives: the tests of MW-136.
 */
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { Agent, type AgentSnapshot, ExecuteToolStage } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, toolUseTurn } from '../../src/testing/index';

/** A part of a snapshot's JSON, open to changes. */
export type Part = Record<string, unknown>;

/** A message as JSON. */
export interface MessageData {
  role: string;
  content: unknown[];
}

/** A snapshot of a halted turn as JSON, open to changes. */
export interface Data {
  messages: MessageData[];
  halted: { interrupts: Part[]; input: unknown[]; turn: { message: MessageData; results: Part[]; terminating?: unknown } };
}

/** The recorded result at `index` of the halted turn. */
export const resultAt = (snapshot: Data, index = 0): Part => snapshot.halted.turn.results[index] as Part;

/** The snapshot as a part, to change a field its type does not list. */
export const whole = (snapshot: Data): Part => snapshot as unknown as Part;

/** The halted run of the snapshot as a part. */
export const haltedPart = (snapshot: Data): Part => snapshot.halted;

/** The block at `blockIndex` of the history's message at `index`. */
export const blockAt = (snapshot: Data, index: number, blockIndex: number): Part =>
  (snapshot.messages[index] as MessageData).content[blockIndex] as Part;

/** The tools of the halted agent: `lookup` answers, `pay` asks for approval. */
export function haltedAgentParts(): { registry: MiddlewareRegistry; tools: ScriptedTool[] } {
  const registry = new MiddlewareRegistry();
  registry.add(ExecuteToolStage.Wrap, async function* approval(context, next) {
    if (context.toolUse.name !== 'pay' || context.interrupt({ name: 'approve' }).response === 'yes') yield* next();
  });
  return { registry, tools: [new ScriptedTool({ name: 'lookup', outcomes: [{ value: 'found' }] }), new ScriptedTool({ name: 'pay' })] };
}

/** The snapshot of an agent halted in a turn of two tool uses, the first one answered. */
export async function haltedTurnSnapshot(): Promise<Data> {
  const { registry, tools } = haltedAgentParts();
  const model = new ScriptedModel([
    toolUseTurn([
      { name: 'lookup', input: { id: 7 }, toolUseId: 'u1' },
      { name: 'pay', input: { amount: 5 }, toolUseId: 'u2' },
    ]),
  ]);
  const agent = new Agent({ model, registry, tools });
  await agent.invoke('pay order 7');
  return JSON.parse(JSON.stringify(agent.snapshot())) as Data;
}

/** A copy of `saved` changed by `change`; `saved` stays as it was. */
export function changedCopy(saved: Data, change: (snapshot: Data) => void): Data {
  const copy = structuredClone(saved);
  change(copy);
  return copy;
}

/** What restoring the snapshot gives: the error's code and stage and the part its message names first, or 'restored'. */
export function restore(snapshot: Data): unknown {
  try {
    new Agent({ model: new ScriptedModel([]), snapshot: snapshot as unknown as AgentSnapshot });
    return 'restored';
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage, part: /^\[ERR_\w+\] Agent: (\S+) /.exec(error.message)?.[1] };
  }
}

/** The message of the error restoring the snapshot throws, or 'restored'. */
export function refusal(snapshot: Data): string {
  try {
    new Agent({ model: new ScriptedModel([]), snapshot: snapshot as unknown as AgentSnapshot });
    return 'restored';
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return error.message;
  }
}

/** The refusal MW-136 asks for, naming `part`. */
export const refused = (part: string): unknown => ({ code: 'ERR_INVALID_OPTIONS', stage: 'agentStream', part });

export const TURN = 'options.snapshot.halted.turn';
