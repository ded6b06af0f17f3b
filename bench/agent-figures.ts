/**
 * A figure over the reference agent: one turn of a model streaming 1,000
 * events and asking for two tools, then the short answer that ends the run,
 * with the demo's five middlewares registered but passing through, against a
 * loop written by hand around the same model, tools and five functions.
 */
import type { Draft } from 'immer';
import type { Instrumentation, MiddlewareResult as Result, Next } from '../src/core/index';
import type { ContentBlock, Message, Model, ModelStreamEvent, Tool, ToolSpec, ToolUseBlock, Usage } from '../src/agent/index';
import type { Figure } from './figures';
import {
  AbortFlag,
  callInput,
  callOutput,
  CHECKED_FLOOR,
  checkNext,
  checkOptions,
  enteredLayer,
  guardedShell,
  HeldState,
  instrumentInvoke,
  type Binding,
  type InvokeObserving,
  type Settling,
  type Shell,
} from './floor';
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
  /** The registry's instrumentation, told of each invoke (MW-052). */
  readonly instrumentation: InvokeObserving;
  readonly model: Shell;
  readonly tool: Shell;
  readonly turn: Shell;
  readonly run: Shell;
}

function runChecks(flag: AbortFlag, instrumentation: InvokeObserving): RunChecks {
  return {
    flag,
    instrumentation,
    model: guardedShell({ flag, guard: InvokeModelStage.isResult as (event: unknown) => boolean, hold: true }),
    tool: guardedShell({ flag, guard: ExecuteToolStage.isResult as (event: unknown) => boolean, hold: false }),
    turn: guardedShell({ flag, guard: TurnStage.isResult as (event: unknown) => boolean, hold: false }),
    run: guardedShell({ flag, guard: AgentStreamStage.isResult as (event: unknown) => boolean, hold: true }),
  };
}

/** The conversation state of the floor's run (MW-119): its history and model state, frozen as the agent's is. */
interface Conversation {
  readonly history: readonly Message[];
  readonly modelState: Readonly<Record<string, unknown>>;
}

/** The conversation a run of the figure starts from: a new agent's (each run of ours builds one). */
const NEW_CONVERSATION: Conversation = Object.freeze({ history: Object.freeze([]), modelState: Object.freeze({}) });

/** The run terminal's own copy of the conversation state, as it receives it (MW-119, MW-028): the run's draft. */
interface RunTerminal {
  /** What the run's agent kept of its options. */
  readonly agent: FloorAgent;
  /** The run context's messages, which the terminal appends to its history first (MW-104). */
  readonly input: readonly Message[];
  readonly signal: AbortSignal;
  readonly state: Draft<Conversation>;
}

/**
 * What an agent keeps of its options, checked and copied when it is made (MW-106): `ours` makes an agent for each
 * run, so the floor with the checks makes this for each run.
 */
interface FloorAgent {
  /** The tools by name, where a tool use finds its tool (MW-111). */
  readonly tools: ReadonlyMap<string, Tool>;
  /** Frozen copies of the tools' specs, in a frozen array (MW-106, MW-105). */
  readonly toolSpecs: readonly ToolSpec[];
  /** The system prompt as frozen blocks (MW-034, MW-109). */
  readonly systemBlocks: readonly { readonly text: string }[];
  /** The agent view every context carries (MW-138). */
  readonly view: { readonly name: string; readonly sessionId: undefined; readonly tools: readonly ToolSpec[] };
  /** The most turns a run makes (MW-143). */
  readonly maxTurns: number;
}

/** A JSON value copied and frozen, `__proto__` an ordinary key (MW-106, MW-139): how an agent copies a tool's spec. */
function frozenJsonCopy(value: unknown): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenJsonCopy));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, part] of Object.entries(value)) {
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: frozenJsonCopy(part), enumerable: true, writable: true, configurable: true });
    else copy[key] = frozenJsonCopy(part);
  }
  return Object.freeze(copy);
}

/**
 * `new Agent()`'s work for the figure's options, written by hand: the model and each tool checked, each spec copied
 * and frozen, the names unique (MW-106), the system prompt made frozen blocks (MW-034), the agent view (MW-138).
 */
function floorAgent(model: Model, tools: readonly Tool[], systemPrompt: string): FloorAgent {
  if (typeof model.stream !== 'function') throw new TypeError('new Agent() needs { model } with a stream method');
  const byName = new Map<string, Tool>();
  const toolSpecs: ToolSpec[] = [];
  for (const tool of tools) {
    const spec = frozenJsonCopy(tool.spec) as ToolSpec | undefined;
    if (typeof spec?.name !== 'string' || (tool.run !== undefined && typeof tool.run !== 'function'))
      throw new TypeError('every tool needs { spec: { name, description, inputSchema }, run }');
    if (byName.has(spec.name)) throw new TypeError(`two tools are named "${spec.name}"`);
    byName.set(spec.name, tool);
    toolSpecs.push(spec);
  }
  Object.freeze(toolSpecs);
  return {
    tools: byName,
    toolSpecs,
    systemBlocks: Object.freeze([Object.freeze({ text: systemPrompt })]),
    view: Object.freeze({ name: 'agent', sessionId: undefined, tools: toolSpecs }),
    maxTurns: 20,
  };
}

/** No tokens yet: where a run's usage sum starts (MW-104). */
const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** Two token counts added up, each checked first (MW-104, MW-119: an Output handler may have broken a result's). */
function addUsage(total: Usage, more: Usage): Usage {
  for (const usage of [total, more])
    if (!(Number.isFinite(usage.inputTokens) && Number.isFinite(usage.outputTokens) && Number.isFinite(usage.totalTokens)))
      throw new TypeError('usage must be { inputTokens, outputTokens, totalTokens } (finite numbers)');
  return Object.freeze({
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    totalTokens: total.totalTokens + more.totalTokens,
  });
}

/**
 * The `interrupt` of one tool call (MW-113): a function of its own, which asks the run's caller the questions it is
 * given (in this figure no tool asks).
 */
function interruptFor(toolUseId: string): (request: { readonly name: string }) => never {
  return (request) => {
    throw new Error(`tool use "${toolUseId}" asked "${request.name}", which this figure never answers`);
  };
}

/** Whether a value is a `MiddlewareResult`: what MW-011 asks of an Output handler's answer. */
const isMiddlewareResult = (value: unknown): boolean => MiddlewareResult.isInstance(value);

/** What a model call came to: the event the agent's model terminal yields last. */
interface ModelResult {
  readonly type: 'modelResult';
  readonly message: Message;
  readonly stopReason: string;
  readonly usage?: Usage;
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
 * its result event. With `terminal`, the run's terminal call, each invoke also does the registry's work for it:
 * its options checked (MW-035), the instrumentation told with a frozen info (MW-052, MW-037), the Input and Output
 * handlers called with a `run` of their own and their answers checked (MW-010, MW-011), each Wrap handler and
 * terminal given a `run` of its own and its generator checked (MW-012, MW-037), each `next()` checked (MW-013), the
 * model state drafted for each model call and written back when it succeeds (MW-108, MW-027 – MW-029); the
 * contexts, events and messages it makes are frozen (MW-105), and its history and model state go into the run's
 * draft at the end (MW-119). The terminal's agent adds what the agent's own rules ask: the contexts carry its view
 * (MW-138) and its frozen system blocks and tool specs, a tool use finds its tool by name (MW-111), each tool call
 * gets an `interrupt` of its own (MW-113), the turns are counted against the limit (MW-143), each model result's
 * usage is added to the run's (MW-104), each turn's context tells its number, stop reason and usage (MW-125), and
 * the run's result carries its message and usage.
 */
async function* handWrittenRun(
  model: Model,
  shell: Shell,
  checks?: RunChecks,
  terminal?: RunTerminal,
): AsyncGenerator<unknown, void, undefined> {
  const raced = checks !== undefined;
  const modelShell = checks?.model ?? shell;
  const toolShell = checks?.tool ?? shell;
  const messages: Message[] = terminal === undefined ? [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }] : [...terminal.input];
  const agent = terminal?.agent;
  const toolSpecs = agent?.toolSpecs ?? TOOLS.map((tool) => tool.spec);
  const view = agent?.view;
  let usage = ZERO_USAGE;
  let turns = 0;
  const signal = checks?.flag.signal ?? new AbortController().signal;
  // The run terminal's model state (MW-119), which each model call's binding starts from and writes back to (MW-108).
  let modelState = NEW_CONVERSATION.modelState;
  let modelBinding: Binding<Conversation['modelState']> | undefined;
  if (terminal !== undefined) {
    modelBinding = {
      get: () => modelState,
      set: (state) => {
        modelState = state;
      },
    };
  }
  for (;;) {
    if (raced) await nextMacrotask();
    // MW-143: a run makes at most maxTurns turns.
    if (agent !== undefined && ++turns > agent.maxTurns) throw new Error('the run reached its turn limit');
    let context: { readonly messages: readonly Message[]; readonly systemPrompt: unknown; readonly toolSpecs: unknown };
    let held: HeldState<Conversation['modelState']> | undefined;
    if (terminal === undefined) {
      timeline.invoke({ stage: InvokeModelStage } as never);
      context = addDate({ messages: Object.freeze([...messages]), systemPrompt: SYSTEM_PROMPT, toolSpecs });
    } else {
      const given = Object.freeze({
        messages: Object.freeze([...messages]),
        systemPrompt: (agent as FloorAgent).systemBlocks,
        toolSpecs,
        modelState,
        agent: view,
      });
      checkOptions(signal, modelBinding);
      instrumentInvoke((checks as RunChecks).instrumentation, InvokeModelStage, given, signal);
      const entered = callInput(addDate, given, { stage: InvokeModelStage, signal, handler: 'addDate' }, (checks as RunChecks).flag);
      context = entered instanceof Promise ? await entered : entered;
      held = new HeldState(modelBinding as Binding<Conversation['modelState']>);
    }
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
      const output = new MiddlewareResult<Message>({ role: 'assistant', content });
      if (terminal === undefined) return { type: 'modelResult', message: redactEmail(output).value, stopReason };
      // redactEmail answers at once, so callOutput answers with its result rather than a promise.
      const redacted = callOutput(
        redactEmail,
        output,
        { stage: InvokeModelStage, signal, handler: 'redactEmail' },
        isMiddlewareResult,
        (checks as RunChecks).flag,
      ) as Result<Message>;
      return Object.freeze({ type: 'modelResult', message: redacted.value, stopReason, usage: ZERO_USAGE });
    };
    // With the checks, the inner chains the Wrap handler started, closed at the end of the call (MW-016).
    const modelChains: AsyncIterable<unknown>[] | undefined = raced ? [] : undefined;
    const modelInvoke: Settling | undefined = held === undefined ? undefined : { settled: false };
    let draft: Draft<Conversation['modelState']> | undefined;
    const stream = (): AsyncIterable<ModelStreamEvent> => {
      if (held === undefined) {
        const modelEvents = model.stream(request, { signal, state: {} });
        if (!raced) return modelEvents;
        const chain = racePulls(modelEvents, signal, assemble as unknown as () => ModelStreamEvent);
        modelChains?.push(chain);
        return chain;
      }
      checkNext(modelInvoke as Settling, (checks as RunChecks).flag);
      // The terminal call's run (MW-012) with a fresh draft of the model state (MW-028), which the model receives.
      const call = { stage: InvokeModelStage, signal, state: (draft = held.draft()) };
      const chain = enteredLayer(
        racePulls(model.stream(request, { signal: call.signal, state: call.state }), signal, assemble as unknown as () => ModelStreamEvent),
      );
      modelChains?.push(chain);
      return chain;
    };
    const events =
      held === undefined
        ? retryOnce(context, stream as Next<unknown, ModelStreamEvent>)
        : enterWrap<ModelStreamEvent>(retryOnce, context, stream, { stage: InvokeModelStage, signal, handler: 'retryOnce' });
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
    if (held !== undefined) {
      // The terminal call completed and the invoke succeeded: its state recorded, then written back (MW-028, MW-029).
      (modelInvoke as Settling).settled = true;
      held.complete(draft as Draft<Conversation['modelState']>);
      held.succeeded();
    }
    if (result === undefined) {
      result = assemble();
      yield result;
    }
    const { message } = result;
    if (agent !== undefined) usage = addUsage(usage, result.usage as Usage);
    messages.push(message);
    if (stopReason !== 'toolUse') {
      if (checks !== undefined) {
        const turn = { index: turns, stopReason, usage, view };
        await decideTurn(checks, messages, message, [], signal, terminal !== undefined, turn);
        if (terminal !== undefined) {
          // The run terminal's copy of the conversation state, which the run's writeback commits (MW-119).
          terminal.state.history = Object.freeze([...messages]) as never;
          terminal.state.modelState = modelState;
          yield Object.freeze({ type: 'agentResult', stopReason, message, interrupts: NO_INTERRUPTS, usage });
        } else yield RUN_RESULT;
      }
      return;
    }
    const results: ContentBlock[] = [];
    for (const toolUse of toolUses) {
      const tool = (
        agent === undefined ? TOOLS.find((candidate) => candidate.spec.name === toolUse.name) : agent.tools.get(toolUse.name)
      ) as Tool;
      let toolContext: unknown = { toolUse };
      const interrupt = agent === undefined ? undefined : interruptFor(toolUse.toolUseId);
      if (terminal === undefined) timeline.invoke({ stage: ExecuteToolStage } as never);
      else {
        toolContext = Object.freeze({ tool, toolUse, invocationState: INVOCATION_STATE, signal, interrupt, agent: view });
        checkOptions(signal);
        instrumentInvoke((checks as RunChecks).instrumentation, ExecuteToolStage, toolContext, signal);
      }
      const toolChains: AsyncIterable<unknown>[] | undefined = raced ? [] : undefined;
      const toolInvoke: Settling | undefined = terminal === undefined ? undefined : { settled: false };
      const runTool = async function* runTool(): AsyncGenerator<unknown, void, undefined> {
        const answer = (tool.run as NonNullable<Tool['run']>)(toolUse.input, {
          toolUse,
          signal,
          invocationState: agent === undefined ? {} : INVOCATION_STATE,
          interrupt: interrupt as never,
        }) as Promise<unknown>;
        const value = await (raced ? raceAnswer(answer, signal) : answer);
        if (terminal === undefined)
          yield {
            type: 'toolResult',
            toolResult: {
              type: 'toolResult',
              toolUseId: toolUse.toolUseId,
              status: 'success',
              content: [{ type: 'text', text: String(value) }],
            },
          };
        else
          yield Object.freeze({
            type: 'toolResult',
            toolResult: Object.freeze({
              type: 'toolResult',
              toolUseId: toolUse.toolUseId,
              name: toolUse.name,
              status: 'success',
              content: Object.freeze([Object.freeze({ type: 'text', text: String(value) })]),
            }),
          });
      };
      const toolTerminal = (): AsyncGenerator<unknown, void, undefined> => {
        if (toolInvoke !== undefined) checkNext(toolInvoke, (checks as RunChecks).flag);
        // The terminal call's run (MW-012): the tool call has no state binding.
        const chain =
          terminal === undefined
            ? runTool()
            : enteredLayer(
                (runTool as (run: unknown) => AsyncGenerator<unknown, void, undefined>)({
                  stage: ExecuteToolStage,
                  signal,
                  state: undefined,
                }),
              );
        toolChains?.push(chain);
        return chain;
      };
      const guarded =
        terminal === undefined
          ? toolGuard(toolContext, toolTerminal as Next<unknown, unknown>)
          : enterWrap<unknown>(toolGuard, toolContext, toolTerminal, { stage: ExecuteToolStage, signal, handler: 'toolGuard' });
      for await (const event of toolShell(guarded, toolChains)) {
        results.push((event as { toolResult: ContentBlock }).toolResult);
        yield event;
      }
      if (toolInvoke !== undefined) toolInvoke.settled = true;
    }
    messages.push(
      terminal === undefined ? { role: 'user', content: results } : Object.freeze({ role: 'user', content: Object.freeze(results) }),
    );
    if (checks !== undefined)
      await decideTurn(checks, messages, message, results, signal, terminal !== undefined, { index: turns, stopReason, usage, view });
  }
}

/** The run's invocation state (MW-105: shared, never frozen by the agent). */
const INVOCATION_STATE = {};

/** The event the floor's run without the registry's work ends with (frozen, as the agent's result is). */
const RUN_RESULT = Object.freeze({ type: 'agentResult', stopReason: 'endTurn', interrupts: Object.freeze([]) });

/** A run's interrupts when none was raised. */
const NO_INTERRUPTS = Object.freeze([]);

/** A Wrap handler entered as the registry enters it: with its `run` (MW-012), its generator checked. */
function enterWrap<TEvent>(
  handler: unknown,
  context: unknown,
  next: unknown,
  run: { readonly stage: unknown; readonly signal: AbortSignal; readonly handler: string },
): AsyncGenerator<TEvent, void, undefined> {
  return enteredLayer(
    (handler as (context: unknown, next: unknown, run: unknown) => AsyncGenerator<TEvent, void, undefined>)(context, next, run),
  );
}

/** The natural decision after a turn, as the TurnStage terminal yields it. */
const NATURAL = Object.freeze({ type: 'turnResult', decision: 'natural', inject: Object.freeze([]), onRunEnd: Object.freeze([]) });

/** The TurnStage terminal: the natural decision, whatever the context. */
async function* naturalDecision(_context: unknown, _run?: unknown): AsyncGenerator<typeof NATURAL, void, undefined> {
  yield NATURAL;
}

/** What a turn's context tells of the turn besides its messages (MW-125). */
interface TurnFacts {
  /** The turn's number in the run, from 1. */
  readonly index: number;
  /** The stop reason of its model result. */
  readonly stopReason: string;
  /** The run's usage so far. */
  readonly usage: Usage;
  /** The agent view (MW-138). */
  readonly view: FloorAgent['view'] | undefined;
}

/**
 * A turn's decision (MW-126): one invoke of the TurnStage terminal inside the turn shell of `checks`, its result
 * checked; `registry` adds the registry's work for it (its options, the instrumentation, the terminal's `run` and
 * generator checked), as {@link handWrittenRun} does.
 */
async function decideTurn(
  checks: RunChecks,
  messages: readonly Message[],
  message: Message,
  toolResults: readonly ContentBlock[],
  signal: AbortSignal,
  registry: boolean,
  turn: TurnFacts,
): Promise<void> {
  const context = Object.freeze({
    messages: Object.freeze([...messages]),
    turn: Object.freeze({ index: turn.index, message, toolResults, stopReason: turn.stopReason }),
    ending: toolResults.length === 0,
    usage: turn.usage,
    invocationState: INVOCATION_STATE,
    agent: turn.view,
  });
  let decisions: AsyncIterable<typeof NATURAL>;
  if (registry) {
    checkOptions(signal);
    instrumentInvoke(checks.instrumentation, TurnStage, context, signal);
    decisions = enteredLayer(naturalDecision(context, { stage: TurnStage, signal, state: undefined }));
  } else {
    timeline.invoke({ stage: TurnStage } as never);
    decisions = naturalDecision(context);
  }
  let decided: typeof NATURAL | undefined;
  for await (const event of checks.turn(decisions)) decided = event;
  if (decided?.type !== 'turnResult') throw new Error('A turn decision must be a turnResult.');
}

/**
 * One run of the floor with the checks, as the agent runs it: one AgentStreamStage invoke whose terminal is
 * {@link handWrittenRun}, with the run's signal (its options checked, MW-035), the instrumentation told (MW-052) with
 * the run's frozen context (MW-105), a state binding over the conversation state (MW-119: get once, a draft for the
 * terminal call, the writeback when the run succeeds, MW-027 – MW-029) and the run's shell (hold mode, MW-003).
 * First, as `ours` makes a new agent for each run, it does `new Agent()`'s work for the figure's options (MW-106,
 * MW-138).
 */
export async function checkedFloorRun(model: Model, instrumentation: InvokeObserving = timeline): Promise<unknown> {
  // `ours` makes an agent for each run: its options checked and copied (MW-106, MW-138).
  const agent = floorAgent(model, TOOLS, SYSTEM_PROMPT);
  const flag = new AbortFlag();
  const checks = runChecks(flag, instrumentation);
  const signal = flag.signal;
  let conversation = NEW_CONVERSATION;
  const binding: Binding<Conversation> = {
    get: () => conversation,
    set: (state) => {
      conversation = state;
    },
  };
  const input = Object.freeze([
    Object.freeze({ role: 'user', content: Object.freeze([Object.freeze({ type: 'text', text: PROMPT })]) }),
  ]) as readonly Message[];
  const context = Object.freeze({ messages: input, invocationState: INVOCATION_STATE, interrupt: undefined, agent: agent.view });
  checkOptions(signal, binding);
  instrumentInvoke(checks.instrumentation, AgentStreamStage, context, signal);
  const held = new HeldState(binding);
  const terminal: RunTerminal = { agent, input, signal, state: held.draft() };
  const run = enteredLayer(
    (handWrittenRun as (...args: unknown[]) => AsyncGenerator<unknown, void, undefined>)(model, noShell, checks, {
      stage: AgentStreamStage,
      ...terminal,
    }),
  );
  let last: unknown;
  for await (const event of checks.run(run)) last = event;
  held.complete(terminal.state);
  held.succeeded();
  return last;
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
        if (checked) return () => checkedFloorRun(floorModel);
        return async () => {
          let last: unknown;
          for await (const event of shell(handWrittenRun(floorModel, shell))) last = event;
          return last;
        };
      },
      floorIs:
        'the hand-written loop with a minimal shell (one .then per event, no checks) around the events of each stage invoke they cross: the model or tool call, and the run',
      checkedFloorIs: `${CHECKED_FLOOR}; each pull of the model's stream and each tool call's answer raced against the run signal (MW-115), a macrotask at the start of each turn (MW-142), the inner chain of each Wrap handler closed when its call ends (MW-016) the turn's decision at its end, a one-event invoke (MW-126), and each stage invoke's shell reading the run's abort flag before each pull and after each result pulled (MW-023), the model call's and the run's holding their result with the stage's guard on every event (MW-003, MW-007) and the others checking the last with it (MW-006); and the registry's work for each of the seven invokes: options checked (MW-035), the instrumentation told with a frozen info (MW-052, MW-037), Input and Output handlers given a run of their own and their answers checked (MW-010, MW-011), each Wrap handler and terminal given a run of its own and its generator checked (MW-012, MW-037), each next() checked (MW-013), an immer draft of the model state for each model call and of the conversation state for the run, written back on success (MW-027 – MW-029, MW-108, MW-119), the contexts, events and messages it makes frozen (MW-105); and for each run, as ours makes an agent for each, the agent's options checked and copied (MW-106), its view in every context (MW-138), an interrupt of its own for each tool call (MW-113), the turns counted (MW-143), the usage summed (MW-104) and each turn's context complete (MW-125), as the agent's rules ask`,
      detail: { modelEvents: TURN_EVENTS, toolCalls: TOOL_NAMES.length, modelCalls: 2, middlewares: 5 },
    };
  },
};

/** Figures over the reference agent. */
export const agentFigures: readonly Figure[] = [agentTurn];
