'use strict';
/**
 * Every exported function of every entry point of one build, walked: what each factory's product (a handler, a
 * bundle, an instrumentation, a terminal) is named wherever a user sees the name, and the exported functions that
 * neither table below classifies. Used by `observe.cjs`; this file loads nothing of the package itself.
 */

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
      approvalPolicy: () => ({ wrap: agent.approvalPolicy({ send_email: true }), stage: agent.ExecuteToolStage }),
      stopWhen: () => ({ wrap: agent.stopWhen(() => false), stage: agent.TurnStage }),
      maxTurns: () => ({ wrap: agent.maxTurns(5), stage: agent.TurnStage }),
      stopAfterTool: () => ({ wrap: agent.stopAfterTool('final_answer'), stage: agent.TurnStage }),
      prepareTurn: () => ({ input: agent.prepareTurn(() => undefined), stage: agent.InvokeModelStage }),
      clearToolResults: () => ({ input: agent.clearToolResults(), stage: agent.InvokeModelStage }),
      toolEmulator: () => ({ wrap: agent.toolEmulator({ model }), stage: agent.ExecuteToolStage }),
      toolSelector: () => ({ input: agent.toolSelector(), stage: agent.InvokeModelStage }),
      dynamicSystemPrompt: () => ({ input: agent.dynamicSystemPrompt(() => undefined), stage: agent.InvokeModelStage }),
      promptCaching: () => ({ input: agent.promptCaching(), stage: agent.InvokeModelStage }),
      compaction: () => ({ bundle: agent.compaction({ maxTokens: 10 }) }),
      todoList: () => ({ bundle: agent.todoList() }),
      subagent: () => ({ bundle: agent.subagent({ name: 'helper', description: 'Helps.', model }) }),
      modelCallLimit: () => ({ bundle: agent.modelCallLimit({ runLimit: 3 }) }),
      toolCallLimit: () => ({ bundle: agent.toolCallLimit({ tool: 'search', runLimit: 3 }) }),
      pii: () => ({ bundle: agent.pii({ input: 'redact', output: 'redact', toolResults: 'redact' }) }),
      defineMiddleware: () => ({ bundle: agent.defineMiddleware({ name: 'defined', model: { input: (context) => context } }) }),
    },
    './durable': {
      durableSteps: () => ({ bundle: kit['./durable'].durableSteps({ runId: 'run-1', run() {}, wait() {} }) }),
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
    'registration',
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
    'createStateKey',
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
    'readTurnResult',
    'agentErrorAnswer',
    'modelErrorAnswer',
    'resolveTools',
    'toModelRequest',
    'toResultContent',
    'toolErrorAnswer',
    // The pieces of a framework's own loop.
    'addUsage',
    'callModel',
    'callTools',
    'createTurnContext',
    'decideTurn',
    'endsRun',
    'namedToolResult',
    'restoreLoop',
    'runOwnLoop',
    'settleTurn',
    'snapshotLoop',
    'withResponse',
  ],
  // A model's adapter and a middleware of the AI SDK's own kind, which register nothing under a name of their own.
  './ai-sdk': ['fromAiSdk', 'languageModelMiddleware', 'providerCachePoint', 'wrapAiSdkTools'],
  // A toolset needs a connected server, and goes by the server's name rather than a name of its own.
  './mcp': ['mcpTools'],
  // A run's driver and its waits, which register nothing under a name of their own.
  './durable': ['awaitInterrupts', 'durableAgent'],
  './middleware': ['isRetryableError'],
  './testing': ['failingTurn', 'runStage', 'textTurn', 'throws', 'toolUseTurn', 'updatesState', 'waits'],
  './conformance': ['agentLoopTarget', 'formatReport', 'libraryTarget', 'protocolTarget', 'runConformance', 'serveProtocol'],
  './durable/restate': ['agentWorkflowHandlers', 'restateStepRunner', 'restateWaitSender', 'runAgentInRestate'],
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
function factoryNames(kit, entryPoints) {
  const calls = factoryCalls(kit);
  const names = {};
  const unclassified = [];
  for (const entry of entryPoints) {
    for (const [name, value] of Object.entries(kit[entry])) {
      if (typeof value !== 'function' || isClass(value)) continue;
      const call = calls[entry]?.[name];
      if (call !== undefined) names[`${entry} ${name}`] = registeredNames(kit['.'], call());
      else if (!(NOT_FACTORIES[entry] ?? []).includes(name)) unclassified.push(`${entry} ${name}`);
    }
  }
  return { names, unclassified };
}

module.exports = { anything, factoryNames, silentTracer };
