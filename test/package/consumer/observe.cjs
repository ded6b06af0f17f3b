'use strict';
/**
 * What one build of the installed package exposes, observed the way a user
 * meets it: the export names of its entry points, and the name under
 * which each built-in handler shows (its function name, `describe()`,
 * `explain()` and the keys of `runStage(...).calls`; for the agent
 * middleware, the bundle or handler name, `describe()` and `explain()`),
 * and what the agent kit hands the core's registry from the other entry
 * point (its model terminal; its run signal's flag).
 *
 * Shared by `esm.mjs` and `cjs.cjs`, which load one build each and pass its
 * entry points in; this file loads nothing of the package itself.
 */

const { anything, factoryNames, silentTracer } = require('./factories.cjs');

/** The package's entry points, as `exports` lists them. */
const ENTRY_POINTS = ['.', './agent', './ai-sdk', './mcp', './durable', './middleware', './testing', './conformance', './durable/restate'];

/** The export names of each entry point, sorted. */
function exportNames(kit) {
  return Object.fromEntries(ENTRY_POINTS.map((entry) => [entry, Object.keys(kit[entry]).sort()]));
}

/** One successful run of `stage` with the handlers or bundles given, as `runStage` reports it. */
async function run(kit, stage, options) {
  const testing = kit['./testing'];
  const outcome = await testing.runStage(stage, { context: { prompt: 'hi' }, terminal: testing.scriptedTerminal([['done']]), ...options });
  return {
    calls: Object.fromEntries(
      Object.entries(outcome.calls).map(([name, calls]) => [
        name,
        { phase: calls.phase, activations: calls.activations, nextCalls: calls.nextCalls },
      ]),
    ),
    error: outcome.error === undefined ? null : String(outcome.error),
  };
}

/** How each built-in handler of the build is named wherever a user sees the name. */
async function handlerNames(kit) {
  const core = kit['.'];
  const middleware = kit['./middleware'];
  const stage = core.createStage('probe');
  const wraps = {
    retry: middleware.retry(),
    fallback: middleware.fallback([]),
    regenerate: middleware.regenerate({ check: () => undefined, feedback: (context) => context }),
    timeout: middleware.timeout(60_000),
    rateLimit: middleware.rateLimit({ minIntervalMs: 1 }),
    cache: middleware.cache({ key: () => undefined }),
  };
  const observed = {};
  for (const [factory, handler] of Object.entries(wraps)) {
    const registry = new core.MiddlewareRegistry();
    registry.add(stage.Wrap, handler);
    observed[factory] = {
      name: handler.name,
      describe: registry.describe(stage).map((entry) => entry.name),
      explain: registry.explain(stage),
      ...(await run(kit, stage, { handlers: [[stage.Wrap, handler]] })),
    };
  }
  const bundle = middleware.validate(stage, { context: anything, result: anything });
  const registered = [];
  bundle.setup({ add: (_target, handler) => (registered.push(handler), () => undefined), instrument: () => () => undefined });
  const registry = new core.MiddlewareRegistry();
  registry.use(bundle);
  observed.validate = {
    name: bundle.name,
    handlers: registered.map((handler) => handler.name),
    describe: registry.describe(stage).map((entry) => entry.name),
    explain: registry.explain(stage),
    ...(await run(kit, stage, { use: [bundle] })),
  };
  observed.tracing = { name: middleware.tracing({ tracer: silentTracer }).name };
  observed.logging = { name: middleware.logging({ logger: () => undefined }).name };
  observed.scriptedTerminal = { name: kit['./testing'].scriptedTerminal([['done']]).name };
  return { ...observed, ...agentHandlerNames(kit) };
}

/** How each agent middleware of the build is named: its bundle or handler, and `describe()` and `explain()` of the stage it registers on. */
function agentHandlerNames(kit) {
  const core = kit['.'];
  const agent = kit['./agent'];
  const bundles = {
    compaction: [agent.compaction({ maxTokens: 10 }), agent.CompressContextStage],
    todoList: [agent.todoList(), agent.InvokeModelStage],
    subagent: [agent.subagent({ name: 'helper', description: 'Helps.', model: { stream() {} } }), agent.ExecuteToolStage],
    modelCallLimit: [agent.modelCallLimit({ runLimit: 3 }), agent.InvokeModelStage],
    toolCallLimit: [agent.toolCallLimit({ tool: 'search', runLimit: 3 }), agent.ExecuteToolStage],
    pii: [agent.pii({ input: 'redact', output: 'redact' }), agent.InvokeModelStage],
  };
  const observed = {};
  for (const [factory, [bundle, stage]] of Object.entries(bundles)) {
    const registry = new core.MiddlewareRegistry();
    registry.use(bundle);
    observed[factory] = {
      name: bundle.name,
      describe: registry.describe(stage).map((entry) => entry.name),
      explain: registry.explain(stage),
    };
  }
  const handlers = {
    afterToolCall: [agent.afterToolCall(() => undefined), agent.ExecuteToolStage, 'Output'],
    checkFinalAnswer: [agent.checkFinalAnswer({ check: () => undefined }), agent.InvokeModelStage, 'Wrap'],
  };
  for (const [factory, [handler, stage, phase]] of Object.entries(handlers)) {
    const registry = new core.MiddlewareRegistry();
    registry.add(stage[phase], handler);
    observed[factory] = {
      name: handler.name,
      describe: registry.describe(stage).map((entry) => entry.name),
      explain: registry.explain(stage),
    };
  }
  return observed;
}

/**
 * The agent's model terminal run by the core's registry, the two from different entry points (`./agent`, `.`),
 * under a Wrap handler and a state binding: whether the handler's `next()` hands out the terminal's own iterator
 * (so the bundle shares with the core what the terminal reports its completion with), and the state written back.
 */
async function modelTerminalAcrossEntries(kit) {
  const core = kit['.'];
  const agent = kit['./agent'];
  let returned;
  let handedOut;
  const registry = new core.MiddlewareRegistry();
  registry.add(agent.InvokeModelStage.Wrap, async function* pass(_context, next) {
    handedOut = next();
    yield* handedOut;
  });
  const model = {
    async *stream(_request, options) {
      options.state.calls = 1;
      yield { type: 'textDelta', text: 'hi' };
    },
  };
  const context = { model, messages: [], systemPrompt: [], toolSpecs: [], invocationState: {} };
  let written;
  const terminal = (given, run) => (returned = agent.modelTerminal(given, run));
  const state = { get: () => ({ calls: 0 }), set: (next) => void (written = next) };
  const events = registry.invoke(agent.InvokeModelStage, context, terminal, { state });
  while (!(await events.next()).done);
  return { handedOutAsReturned: handedOut === returned, written };
}

/**
 * An agent run (`./agent`) under the core's registry (`.`), its model streaming `modelEvents` events: how often the
 * run's signal was read for `aborted` once the model call began. The core's invoke reads the flag of the agent's
 * run controller instead on every event, which it finds only when both entry points share the module that flags it.
 */
async function runSignalAcrossEntries(kit) {
  const core = kit['.'];
  const agent = kit['./agent'];
  const modelEvents = 200;
  let reads = 0;
  const registry = new core.MiddlewareRegistry();
  registry.add(agent.InvokeModelStage.Wrap, async function* countSignalReads(_context, next, run) {
    const { signal } = run;
    Object.defineProperty(signal, 'aborted', {
      configurable: true,
      get() {
        reads++;
        return Reflect.get(AbortSignal.prototype, 'aborted', signal);
      },
    });
    yield* next();
  });
  const model = {
    async *stream() {
      yield { type: 'messageStart', role: 'assistant' };
      for (let index = 0; index < modelEvents - 2; index++) yield { type: 'textDelta', text: 'a' };
      yield { type: 'messageStop', stopReason: 'endTurn' };
    },
  };
  const result = await new agent.Agent({ model, registry }).invoke('hi');
  return { modelEvents, reads, stopReason: result.stopReason };
}

/**
 * A framework's own loop (`runOwnLoop`, `createTurnContext`, `decideTurn` of `./agent`) under the core's registry
 * (`.`), traced by `tracing` of `./middleware` with the agent kit's span conventions, into a tracer that notes each
 * span with its parent as it ends: one tree per run needs the entry points to agree on the stage tokens and on what
 * opens and joins a run.
 */
async function ownLoopAcrossEntries(kit) {
  const core = kit['.'];
  const agent = kit['./agent'];
  const { tracing } = kit['./middleware'];
  const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
  const ended = [];
  const tracer = {
    startSpan(name, _options, context) {
      const parent = context?.getValue(SPAN_KEY);
      const span = {
        name,
        isRecording: () => true,
        setAttribute: () => span,
        setAttributes: () => span,
        addEvent: () => span,
        recordException: () => span,
        setStatus: () => span,
        end: () => void ended.push(`${name} <- ${parent?.name ?? 'none'}`),
      };
      return span;
    },
  };
  const registry = new core.MiddlewareRegistry();
  registry.instrument(tracing({ tracer, now: () => 0, conventions: [agent.genAiSpans] }));
  const usage = { inputTokens: 2, outputTokens: 1, totalTokens: 3 };
  const model = {
    async *stream() {
      yield { type: 'textDelta', text: 'hi' };
      yield { type: 'usage', usage };
      yield { type: 'messageStop', stopReason: 'endTurn' };
    },
  };
  const input = [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }];
  const kept = [];
  const conversation = { get: () => ({ turns: 0 }), set: (state) => void kept.push({ ...state, frozen: Object.isFrozen(state) }) };
  const run = agent.runOwnLoop(
    registry,
    { messages: input, invocationState: {} },
    async function* (context, signal, checkpoint) {
      const { invocationState } = context;
      const modelContext = agent.createModelContext({
        model,
        messages: context.messages,
        systemPrompt: undefined,
        toolSpecs: [],
        invocationState,
      });
      let result;
      for await (const event of registry.invoke(agent.InvokeModelStage, modelContext, agent.modelTerminal, { signal }))
        yield (result = event);
      const total = agent.addUsage(agent.ZERO_USAGE, result.usage);
      const turn = { index: 1, message: result.message, toolResults: [], stopReason: result.stopReason };
      const turnContext = agent.createTurnContext({ messages: context.messages, turn, usage: total, invocationState });
      if (!agent.endsRun(await agent.decideTurn(registry, turnContext, { signal }), turnContext)) throw new Error('the run goes on');
      checkpoint({ turns: 1 });
      return { stopReason: result.stopReason, message: result.message, usage: total };
    },
    { conversation },
  );
  let last;
  for await (const event of run) last = event;
  return { spans: ended, result: { stopReason: last.stopReason, usage: last.usage }, kept };
}

/**
 * An MCP toolset (`./mcp`) in an agent run (`./agent`) of the same build, over a client written here (the package
 * has no MCP library beside it): the tools the model was offered, and the result of each call, the code of the error
 * kept with a failed one included. The toolset's tools reach the agent only when both entry points share the key
 * tools are contributed under.
 */
async function mcpAcrossEntries(kit) {
  const agent = kit['./agent'];
  const testing = kit['./testing'];
  const client = {
    listTools: async () => ({ tools: [{ name: 'add', description: 'Adds.', inputSchema: { type: 'object' } }, { name: 'quota' }] }),
    callTool: async ({ name, arguments: input }) =>
      name === 'add'
        ? { content: [{ type: 'text', text: String(input.a + input.b) }], structuredContent: { sum: input.a + input.b } }
        : { isError: true, content: [{ type: 'text', text: 'quota exceeded' }] },
    getServerVersion: () => ({ name: 'calc', version: '1.0.0' }),
  };
  const toolset = await kit['./mcp'].mcpTools({ client, prefix: 'calc_' });
  const model = new testing.ScriptedModel([
    testing.toolUseTurn([
      { name: 'calc_add', input: { a: 2, b: 3 }, toolUseId: 'add-1' },
      { name: 'calc_quota', input: {}, toolUseId: 'quota-1' },
    ]),
    testing.textTurn('done'),
  ]);
  const registry = new kit['.'].MiddlewareRegistry();
  const codes = [];
  registry.add(agent.ExecuteToolStage.Output, function keepCode(result) {
    codes.push(result.value.error === undefined ? 'none' : result.value.error.code);
    return result;
  });
  const run = new agent.Agent({ model, registry });
  await run.invoke('go', { use: [toolset] });
  const results = run.messages.flatMap((message) => message.content.filter((block) => block.type === 'toolResult'));
  return {
    bundle: toolset.name,
    offered: model.calls[0].request.toolSpecs.map((spec) => spec.name),
    results: results.map((result) => ({
      name: result.name,
      status: result.status,
      content: result.status === 'error' ? 'error' : result.content,
    })),
    codes,
  };
}

/**
 * An agent run (`./agent`) traced by `tracing` of `./middleware` with the reply's conventions: the reply attributes of
 * its `invoke_agent` span (a reply id is noted as `uuid` when it is one), which need the entry points to agree on the
 * stage tokens and the realm to have `crypto.randomUUID`. And a run a guard fails, answered by `agentErrorAnswer`: the
 * answer, and a history the run left as it was.
 */
async function repliesAcrossEntries(kit) {
  const core = kit['.'];
  const agent = kit['./agent'];
  const testing = kit['./testing'];
  const { tracing } = kit['./middleware'];
  const attributes = {};
  const tracer = {
    startSpan(name, options) {
      if (name.startsWith('invoke_agent')) Object.assign(attributes, options?.attributes);
      const span = {
        isRecording: () => true,
        setAttribute: (key, value) => span.setAttributes({ [key]: value }),
        setAttributes: (values) => {
          if (name.startsWith('invoke_agent')) Object.assign(attributes, values);
          return span;
        },
        addEvent: () => span,
        recordException: () => span,
        setStatus: () => span,
        end: () => undefined,
      };
      return span;
    },
  };
  const traced = new core.MiddlewareRegistry();
  traced.instrument(tracing({ tracer, now: () => 0, conventions: [agent.genAiReplySpans] }));
  const geolocate = { spec: { name: 'geolocate', description: 'Where.', inputSchema: { type: 'object' } } };
  const model = new testing.ScriptedModel([testing.toolUseTurn([{ name: 'geolocate', input: {}, toolUseId: 'g1' }])]);
  await new agent.Agent({ model, tools: [geolocate], registry: traced }).invoke('Where am I?');
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const guarded = new core.MiddlewareRegistry();
  guarded.add(agent.AgentStreamStage.Wrap, agent.errorsAsAnswers({ toResult: agent.agentErrorAnswer }));
  guarded.add(agent.InvokeModelStage.Input, function refuse() {
    throw new Error('Refused.');
  });
  const refused = new agent.Agent({ model: new testing.ScriptedModel([]), registry: guarded });
  const answer = await refused.invoke('Hi');
  return {
    replyId: uuid.test(attributes['staged.agent.reply_id']) ? 'uuid' : attributes['staged.agent.reply_id'],
    input: JSON.parse(attributes['gen_ai.input.messages']),
    output: JSON.parse(attributes['gen_ai.output.messages']),
    external: JSON.parse(attributes['staged.agent.pending_external_calls']),
    answer: [answer.stopReason, answer.message.content, refused.messages.length],
  };
}

/**
 * One turn of a framework's own loop made of `callModel` and `callTools` (`./agent`) on the core's registry (`.`),
 * with a tool that answers and one that asks a question: the packed build's pieces must stream every event, hand back
 * the model result and the written model state, run the call after the question and return the questions.
 */
async function ownLoopCallsAcrossEntries(kit) {
  const core = kit['.'];
  const agent = kit['./agent'];
  const registry = new core.MiddlewareRegistry();
  const model = {
    async *stream(_request, options) {
      options.state.turn = 1;
      yield { type: 'toolUseStart', toolUseId: 'q1', name: 'ask' };
      yield { type: 'toolUseDelta', input: '{}' };
      yield { type: 'toolUseStart', toolUseId: 'l1', name: 'ls' };
      yield { type: 'toolUseDelta', input: '{}' };
      yield { type: 'messageStop', stopReason: 'toolUse' };
    },
  };
  const spec = (name) => ({ name, description: name, inputSchema: { type: 'object' } });
  const tools = [
    { spec: spec('ask'), run: (_input, context) => context.interrupt({ name: 'sure' }).response },
    { spec: spec('ls'), run: () => 'a.txt' },
  ];
  const events = [];
  const parts = { model, messages: [], systemPrompt: undefined, toolSpecs: [], modelState: { turn: 0 }, invocationState: {} };
  const calls = agent.callModel(registry, parts);
  let step = await calls.next();
  for (; step.done !== true; step = await calls.next()) events.push(step.value.type);
  const result = step.value;
  const dispatch = agent.callTools(registry, { toolUses: result.toolUses, tools, invocationState: {} });
  step = await dispatch.next();
  for (; step.done !== true; step = await dispatch.next()) events.push(step.value.type);
  return {
    events,
    model: { stopReason: result.stopReason, toolUses: result.toolUses.length, modelState: result.modelState },
    tools: { results: step.value.results.map((block) => block.toolUseId), interrupts: step.value.interrupts.map((asked) => asked.id) },
  };
}

/** Everything this file observes of one build. */
async function observe(kit) {
  return {
    exports: exportNames(kit),
    handlers: await handlerNames(kit),
    modelTerminal: await modelTerminalAcrossEntries(kit),
    runSignal: await runSignalAcrossEntries(kit),
    ownLoop: await ownLoopAcrossEntries(kit),
    ownLoopCalls: await ownLoopCallsAcrossEntries(kit),
    mcp: await mcpAcrossEntries(kit),
    replies: await repliesAcrossEntries(kit),
    factories: factoryNames(kit, ENTRY_POINTS),
  };
}

module.exports = { ENTRY_POINTS, observe };
