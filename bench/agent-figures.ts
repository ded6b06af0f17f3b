/**
 * A figure over the reference agent: one turn of a model streaming 1,000
 * events and asking for two tools, then the short answer that ends the run,
 * with the demo's five middlewares registered but passing through, against a
 * loop written by hand around the same model, tools and five functions.
 */
import type { Instrumentation, MiddlewareResult as Result, Next } from '../src/core/index';
import type { ContentBlock, Message, Model, ModelStreamEvent, Tool, ToolUseBlock } from '../src/agent/index';
import type { Figure } from './figures';
import { AbortFlag, CHECKED_FLOOR, guardedShell, type Shell } from './floor';
import { agentKit, core } from './library';
import { nextMacrotask, raceAnswer, racePulls } from './raced-pulls';

const { Agent, AgentStreamStage, ExecuteToolStage, InvokeModelStage, TurnStage } = agentKit;
const { MiddlewareRegistry, MiddlewareResult } = core;

const TURN_EVENTS = 1000;
const TOOL_NAMES = ['lookup_order', 'check_stock'] as const;

/** The turn asking for both tools: messageStart, text deltas, two tool uses, messageStop; 1,000 events in all. */
const TOOL_TURN: readonly ModelStreamEvent[] = Object.freeze([
  Object.freeze({ type: 'messageStart', role: 'assistant' }),
  ...Array.from({ length: TURN_EVENTS - 2 - 2 * TOOL_NAMES.length }, (_, index) =>
    Object.freeze({ type: 'textDelta', text: `word${index} ` }),
  ),
  ...TOOL_NAMES.flatMap((name, index) => [
    Object.freeze({ type: 'toolUseStart', toolUseId: `call-${index}`, name }),
    Object.freeze({ type: 'toolUseDelta', input: '{"id":"A-1042"}' }),
  ]),
  Object.freeze({ type: 'messageStop', stopReason: 'toolUse' }),
] as ModelStreamEvent[]);

/** The answer that ends the run. */
const ANSWER_TURN: readonly ModelStreamEvent[] = Object.freeze([
  Object.freeze({ type: 'messageStart', role: 'assistant' }),
  Object.freeze({ type: 'textDelta', text: 'Shipped.' }),
  Object.freeze({ type: 'messageStop', stopReason: 'endTurn' }),
] as ModelStreamEvent[]);

/** A model that answers every other call with the tool turn, the others with the answer. */
function alternatingModel(): Model {
  let calls = 0;
  return {
    async *stream() {
      yield* calls++ % 2 === 0 ? TOOL_TURN : ANSWER_TURN;
    },
  };
}

const TOOLS: readonly Tool[] = TOOL_NAMES.map((name) => ({
  spec: Object.freeze({ name, description: `Scripted ${name}.`, inputSchema: Object.freeze({ type: 'object' }) }),
  run: async () => 'found',
}));

/** The demo's five middlewares, each passing through: date, retry, tool guard, redaction, timeline. */
const addDate = function addDate<TContext>(context: TContext): TContext {
  return context;
};
const retryOnce = async function* retryOnce<TEvent>(
  _context: unknown,
  next: Next<unknown, TEvent>,
): AsyncGenerator<TEvent, void, undefined> {
  yield* next();
};
const toolGuard = async function* toolGuard<TEvent>(
  _context: unknown,
  next: Next<unknown, TEvent>,
): AsyncGenerator<TEvent, void, undefined> {
  yield* next();
};
const redactEmail = function redactEmail<TResult>(result: Result<TResult>): Result<TResult> {
  return result;
};
const timeline: Instrumentation = { name: 'timeline', invoke: () => undefined };

function demoRegistry(): InstanceType<typeof MiddlewareRegistry> {
  const registry = new MiddlewareRegistry();
  registry.add(InvokeModelStage.Input, addDate);
  registry.add(InvokeModelStage.Wrap, retryOnce as never);
  registry.add(ExecuteToolStage.Wrap, toolGuard as never);
  registry.add(InvokeModelStage.Output, redactEmail);
  registry.instrument(timeline);
  return registry;
}

const PROMPT = 'Where is order A-1042, and is it in stock?';
const SYSTEM_PROMPT = 'You are a helpful shop assistant.';

/** The baseline's shell: none. */
function noShell<TEvent>(events: AsyncIterable<TEvent>): AsyncIterable<TEvent> {
  return events;
}

/**
 * The checks the agent's rules ask of each stage invoke of a run, for the floor with the checks: every invoke has
 * the run's signal, read through its flag before each pull and after each result pulled (MW-023); the model call
 * (a state binding and an Output handler) and the run (a state binding) hold their result (MW-003), so the
 * stage's `isResult` guard sees each of their events and the last candidate goes out last (MW-007); the tool
 * calls and the turn's decision pass their events on, the guard seeing the last (MW-006).
 */
interface RunChecks {
  readonly flag: AbortFlag;
  readonly model: Shell;
  readonly tool: Shell;
  readonly turn: Shell;
  readonly run: Shell;
}

function runChecks(): RunChecks {
  const flag = new AbortFlag();
  return {
    flag,
    model: guardedShell({ flag, guard: InvokeModelStage.isResult as (event: unknown) => boolean, hold: true }),
    tool: guardedShell({ flag, guard: ExecuteToolStage.isResult as (event: unknown) => boolean, hold: false }),
    turn: guardedShell({ flag, guard: TurnStage.isResult as (event: unknown) => boolean, hold: false }),
    run: guardedShell({ flag, guard: AgentStreamStage.isResult as (event: unknown) => boolean, hold: true }),
  };
}

/** What a model call came to: the event the agent's model terminal yields last. */
interface ModelResult {
  readonly type: 'modelResult';
  readonly message: Message;
  readonly stopReason: string;
}

/**
 * The same run written by hand: the model call and the tool calls with the five functions composed around them;
 * `shell` goes around the events of each model call and each tool call, where the agent has a stage invoke. With
 * `checks`, it does what the agent's rules ask of every run: each stage invoke's shell does the checks of
 * {@link RunChecks} (`shell` is not used then), each pull of the model's stream and each tool call's answer is raced
 * against the run's signal (MW-115), the model call's result is its last event (MW-101), each turn begins with a
 * macrotask (MW-142), the inner chain each Wrap handler started is closed with `return()` when its call ends
 * (MW-016), each turn ends with its decision (MW-126): a one-event invoke of a terminal yielding the natural
 * decision for a frozen context of the turn, whose result the loop checks before it goes on, and the run ends with
 * its result event.
 */
async function* handWrittenRun(model: Model, shell: Shell, checks?: RunChecks): AsyncGenerator<unknown, void, undefined> {
  const raced = checks !== undefined;
  const modelShell = checks?.model ?? shell;
  const toolShell = checks?.tool ?? shell;
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }];
  const toolSpecs = TOOLS.map((tool) => tool.spec);
  const signal = checks?.flag.signal ?? new AbortController().signal;
  for (;;) {
    if (raced) await nextMacrotask();
    timeline.invoke({ stage: InvokeModelStage } as never);
    const context = addDate({ messages: Object.freeze([...messages]), systemPrompt: SYSTEM_PROMPT, toolSpecs });
    const request = {
      messages: context.messages,
      systemPrompt: SYSTEM_PROMPT,
      systemBlocks: [{ text: SYSTEM_PROMPT }],
      toolSpecs,
      toolChoice: undefined,
    };
    let text = '';
    const toolUses: ToolUseBlock[] = [];
    let stopReason = 'endTurn';
    const assemble = (): ModelResult => {
      const content: ContentBlock[] = [{ type: 'text', text }, ...toolUses];
      const message = redactEmail(new MiddlewareResult<Message>({ role: 'assistant', content })).value;
      return { type: 'modelResult', message, stopReason };
    };
    // With the checks, the inner chains the Wrap handler started, closed at the end of the call (MW-016).
    const modelChains: AsyncIterable<unknown>[] | undefined = raced ? [] : undefined;
    const stream = (): AsyncIterable<ModelStreamEvent> => {
      const modelEvents = model.stream(request, { signal, state: {} });
      if (!raced) return modelEvents;
      const chain = racePulls(modelEvents, signal, assemble as unknown as () => ModelStreamEvent);
      modelChains?.push(chain);
      return chain;
    };
    const events = retryOnce(context, stream as Next<unknown, ModelStreamEvent>);
    let result: ModelResult | undefined;
    for await (const event of modelShell(events, modelChains)) {
      if (event.type === 'textDelta') text += event.text;
      else if (event.type === 'toolUseStart')
        toolUses.push({ type: 'toolUse', toolUseId: event.toolUseId, name: event.name, input: undefined });
      else if (event.type === 'toolUseDelta') (toolUses[toolUses.length - 1] as { input: unknown }).input = JSON.parse(event.input);
      else if (event.type === 'messageStop') stopReason = event.stopReason;
      else if ((event as { type: string }).type === 'modelResult') result = event as unknown as ModelResult;
      yield event;
    }
    if (result === undefined) {
      result = assemble();
      yield result;
    }
    const { message } = result;
    messages.push(message);
    if (stopReason !== 'toolUse') {
      if (checks !== undefined) {
        await decideTurn(checks.turn, messages, message, [], signal);
        yield RUN_RESULT;
      }
      return;
    }
    const results: ContentBlock[] = [];
    for (const toolUse of toolUses) {
      timeline.invoke({ stage: ExecuteToolStage } as never);
      const tool = TOOLS.find((candidate) => candidate.spec.name === toolUse.name) as Tool;
      const toolChains: AsyncIterable<unknown>[] | undefined = raced ? [] : undefined;
      const runTool = async function* runTool(): AsyncGenerator<unknown, void, undefined> {
        const answer = (tool.run as NonNullable<Tool['run']>)(toolUse.input, {
          toolUse,
          signal,
          invocationState: {},
          interrupt: undefined as never,
        }) as Promise<unknown>;
        const value = await (raced ? raceAnswer(answer, signal) : answer);
        yield {
          type: 'toolResult',
          toolResult: {
            type: 'toolResult',
            toolUseId: toolUse.toolUseId,
            status: 'success',
            content: [{ type: 'text', text: String(value) }],
          },
        };
      };
      const terminal = (): AsyncGenerator<unknown, void, undefined> => {
        const chain = runTool();
        toolChains?.push(chain);
        return chain;
      };
      for await (const event of toolShell(toolGuard({ toolUse }, terminal as Next<unknown, unknown>), toolChains)) {
        results.push((event as { toolResult: ContentBlock }).toolResult);
        yield event;
      }
    }
    messages.push({ role: 'user', content: results });
    if (checks !== undefined) await decideTurn(checks.turn, messages, message, results, signal);
  }
}

/** The event the floor's run ends with, as the agent's run ends with its result (frozen, as the agent's is). */
const RUN_RESULT = Object.freeze({ type: 'agentResult', stopReason: 'endTurn', interrupts: Object.freeze([]) });

/** The natural decision after a turn, as the TurnStage terminal yields it. */
const NATURAL = Object.freeze({ type: 'turnResult', decision: 'natural', inject: Object.freeze([]), onRunEnd: Object.freeze([]) });

/** The TurnStage terminal: the natural decision, whatever the context. */
async function* naturalDecision(_context: unknown): AsyncGenerator<typeof NATURAL, void, undefined> {
  yield NATURAL;
}

/** A turn's decision (MW-126): one invoke of the TurnStage terminal inside `shell`, its result checked. */
async function decideTurn(
  shell: Shell,
  messages: readonly Message[],
  message: Message,
  toolResults: readonly ContentBlock[],
  signal: AbortSignal,
): Promise<void> {
  timeline.invoke({ stage: TurnStage } as never);
  const context = Object.freeze({
    messages: Object.freeze([...messages]),
    turn: Object.freeze({ message, toolResults }),
    ending: toolResults.length === 0,
    signal,
  });
  let decided: typeof NATURAL | undefined;
  for await (const event of shell(naturalDecision(context))) decided = event;
  if (decided?.type !== 'turnResult') throw new Error('A turn decision must be a turnResult.');
}

const agentTurn: Figure = {
  name: 'agent_turn',
  measures:
    "one reference-agent run: a turn streaming 1,000 model events and calling two tools, then a short answer, with the demo's five middlewares passing through",
  baseline: 'a hand-written loop calling the same model and tools with the same five functions composed by hand',
  goal: 1.15,
  rounds: 51,
  setup() {
    const registry = demoRegistry();
    const ourModel = alternatingModel();
    const theirModel = alternatingModel();
    return {
      ours: () => new Agent({ model: ourModel, tools: TOOLS, registry, systemPrompt: SYSTEM_PROMPT }).invoke(PROMPT),
      baseline: async () => {
        let last: unknown;
        for await (const event of handWrittenRun(theirModel, noShell)) last = event;
        return last;
      },
      // The shells of the stage invokes each event crosses: InvokeModelStage (or ExecuteToolStage) and AgentStreamStage.
      floor: (shell, checked) => {
        const floorModel = alternatingModel();
        if (checked)
          return async () => {
            const checks = runChecks();
            let last: unknown;
            for await (const event of checks.run(handWrittenRun(floorModel, shell, checks))) last = event;
            return last;
          };
        return async () => {
          let last: unknown;
          for await (const event of shell(handWrittenRun(floorModel, shell))) last = event;
          return last;
        };
      },
      floorIs:
        'the hand-written loop with a minimal shell (one .then per event, no checks) around the events of each stage invoke they cross: the model or tool call, and the run',
      checkedFloorIs: `${CHECKED_FLOOR}; each pull of the model's stream and each tool call's answer raced against the run signal (MW-115), a macrotask at the start of each turn (MW-142), the inner chain of each Wrap handler closed when its call ends (MW-016) the turn's decision at its end, a one-event invoke (MW-126), and each stage invoke's shell reading the run's abort flag before each pull and after each result pulled (MW-023), the model call's and the run's holding their result with the stage's guard on every event (MW-003, MW-007) and the others checking the last with it (MW-006), as the agent's rules ask`,
      detail: { modelEvents: TURN_EVENTS, toolCalls: TOOL_NAMES.length, modelCalls: 2, middlewares: 5 },
    };
  },
};

/** Figures over the reference agent. */
export const agentFigures: readonly Figure[] = [agentTurn];
