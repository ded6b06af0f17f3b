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

/** The package's entry points, as `exports` lists them. */
const ENTRY_POINTS = ['.', './agent', './ai-sdk', './middleware', './testing', './conformance'];

/** A schema that accepts everything (the `safeParse` contract `validate` takes). */
const anything = { safeParse: (value) => ({ success: true, data: value }) };

/** A tracer whose spans record nothing, so `tracing` wraps no layer. */
const silentTracer = {
  startSpan: () => ({
    isRecording: () => false,
    end() {},
    setAttribute() {},
    setAttributes() {},
    addEvent() {},
    setStatus() {},
    recordException() {},
  }),
};

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
 * How to call each exported function of the package that makes something registered under a name (a handler, a
 * bundle, an instrumentation) or a terminal that carries one, by entry point; each call says what it made.
 */
function factoryCalls(kit) {
  const core = kit['.'];
  const middleware = kit['./middleware'];
  const agent = kit['./agent'];
  const testing = kit['./testing'];
  const probe = core.createStage('probe');
  const model = { stream() {} };
  return {
    './middleware': {
      retry: () => ({ wrap: middleware.retry(), stage: probe }),
      fallback: () => ({ wrap: middleware.fallback([]), stage: probe }),
      regenerate: () => ({ wrap: middleware.regenerate({ check: () => undefined, feedback: (context) => context }), stage: probe }),
      timeout: () => ({ wrap: middleware.timeout(60_000), stage: probe }),
      rateLimit: () => ({ wrap: middleware.rateLimit({ minIntervalMs: 1 }), stage: probe }),
      cache: () => ({ wrap: middleware.cache({ key: () => undefined }), stage: probe }),
      validate: () => ({ bundle: middleware.validate(probe, { context: anything, result: anything }) }),
      tracing: () => ({ instrumentation: middleware.tracing({ tracer: silentTracer }) }),
      logging: () => ({ instrumentation: middleware.logging({ logger: () => undefined }) }),
    },
    './agent': {
      afterToolCall: () => ({ output: agent.afterToolCall(() => undefined), stage: agent.ExecuteToolStage }),
      checkFinalAnswer: () => ({ wrap: agent.checkFinalAnswer({ check: () => undefined }), stage: agent.InvokeModelStage }),
      errorsAsAnswers: () => ({ wrap: agent.errorsAsAnswers({ toResult: agent.toolErrorAnswer }), stage: agent.ExecuteToolStage }),
      turnAction: () => ({ wrap: agent.turnAction(() => undefined), stage: agent.TurnStage }),
      compaction: () => ({ bundle: agent.compaction({ maxTokens: 10 }) }),
      todoList: () => ({ bundle: agent.todoList() }),
      subagent: () => ({ bundle: agent.subagent({ name: 'helper', description: 'Helps.', model }) }),
    },
    './testing': {
      scriptedTerminal: () => ({ terminal: testing.scriptedTerminal([['done']]) }),
    },
  };
}

/** Exported functions that make nothing registered under a name, by entry point (classes are told apart on their own). */
const NOT_FACTORIES = {
  '.': [
    'createContributionKey',
    'createStage',
    'isPhaseToken',
    'isStage',
    'isSystemTextBlock',
    'on',
    'splitSystemPrompt',
    'toSystemBlocks',
  ],
  './agent': [
    // Terminals themselves, which run under the name "terminal", and the agent's helpers.
    'compressTerminal',
    'modelTerminal',
    'toolTerminal',
    'turnTerminal',
    'createInterrupt',
    'createModelContext',
    'defineTool',
    'errorResult',
    'estimateTokens',
    'finalAnswerFeedback',
    'interruptId',
    'isAgentResult',
    'isContextResult',
    'isModelResult',
    'isToolResult',
    'isTurnResult',
    'mergeTurnAction',
    'modelErrorAnswer',
    'resolveTools',
    'toModelRequest',
    'toResultContent',
    'toolErrorAnswer',
  ],
  './ai-sdk': ['fromAiSdk', 'providerCachePoint'],
  './middleware': ['isRetryableError'],
  './testing': ['failingTurn', 'runStage', 'textTurn', 'throws', 'toolUseTurn', 'updatesState', 'waits'],
  './conformance': ['agentLoopTarget', 'bareRealm', 'formatReport', 'libraryTarget', 'protocolTarget', 'runConformance', 'serveProtocol'],
};

/** Whether `value` is a class (a constructor, not a factory). */
function isClass(value) {
  return /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** The names a registry shows for what one factory call made: `describe()` of each stage a handler went on. */
function registeredNames(core, made) {
  const registry = new core.MiddlewareRegistry();
  for (const phase of ['wrap', 'input', 'output']) {
    if (made[phase] === undefined) continue;
    const token = { wrap: made.stage.Wrap, input: made.stage.Input, output: made.stage.Output }[phase];
    registry.add(token, made[phase]);
    return { function: made[phase].name, describe: registry.describe(made.stage).map((entry) => entry.name) };
  }
  if (made.bundle !== undefined) {
    const stages = [];
    made.bundle.setup({
      add: (target) => (stages.includes(target.stage) || stages.push(target.stage), () => undefined),
      instrument: () => () => undefined,
      provide: () => () => undefined,
    });
    registry.use(made.bundle);
    return {
      bundle: made.bundle.name,
      describe: Object.fromEntries(stages.map((stage) => [stage.name, registry.describe(stage).map((entry) => entry.name)])),
    };
  }
  if (made.instrumentation !== undefined) return { instrumentation: made.instrumentation.name };
  return { terminal: made.terminal.name };
}

/**
 * Every exported function of every entry point, walked: what each factory's product is named wherever a user sees
 * the name, and the exported functions neither table classifies (each must be added to one).
 */
function factoryNames(kit) {
  const calls = factoryCalls(kit);
  const names = {};
  const unclassified = [];
  for (const entry of ENTRY_POINTS) {
    for (const [name, value] of Object.entries(kit[entry])) {
      if (typeof value !== 'function' || isClass(value)) continue;
      const call = calls[entry]?.[name];
      if (call !== undefined) names[`${entry} ${name}`] = registeredNames(kit['.'], call());
      else if (!(NOT_FACTORIES[entry] ?? []).includes(name)) unclassified.push(`${entry} ${name}`);
    }
  }
  return { names, unclassified };
}

/** Everything this file observes of one build. */
async function observe(kit) {
  return {
    exports: exportNames(kit),
    handlers: await handlerNames(kit),
    modelTerminal: await modelTerminalAcrossEntries(kit),
    runSignal: await runSignalAcrossEntries(kit),
    factories: factoryNames(kit),
  };
}

module.exports = { ENTRY_POINTS, observe };
