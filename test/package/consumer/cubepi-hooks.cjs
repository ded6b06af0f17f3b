'use strict';
/**
 * CubePi's hook details, as a user of one build of the package writes them: a turn action replacing the response,
 * the cancel signal a decider receives, a hook's own model call counted under its caller, a hook replaced by its
 * name and a tool result's details kept in the snapshot. `run(library)` takes the entry points of one build;
 * run directly, it uses the CommonJS build and prints the result as JSON.
 */

/** What the hooks of one build do, as plain data. */
async function run({ core, agentKit, testing }) {
  const { MiddlewareRegistry } = core;
  const { Agent, ExecuteToolStage, TurnStage, afterToolCall, turnAction } = agentKit;
  const { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } = testing;
  const say = (role, text) => ({ role, content: [{ type: 'text', text }] });
  const usage = (tokens) => ({ usage: { inputTokens: tokens, outputTokens: 1, totalTokens: tokens + 1 } });
  const registry = new MiddlewareRegistry();
  const seen = [];
  registry.add(
    TurnStage.Wrap,
    turnAction(async function judge(context, _decided, call) {
      seen.push(call.signal instanceof AbortSignal);
      await context.invokeModel({ caller: 'judge', messages: [say('user', 'Judge.')] });
      return context.ending ? { response: say('assistant', 'replaced') } : undefined;
    }),
  );
  registry.add(
    ExecuteToolStage.Output,
    afterToolCall(function details() {
      return { details: { rows: 1 } };
    }),
  );
  registry.add(
    ExecuteToolStage.Output,
    afterToolCall(function details() {
      return { details: { rows: 2 } };
    }),
    { replace: true },
  );
  const model = new ScriptedModel([
    toolUseTurn([{ name: 'lookup', input: {}, toolUseId: 'l1' }], usage(10)),
    textTurn('ok', usage(3)),
    textTurn('original', usage(10)),
    textTurn('ok', usage(3)),
  ]);
  const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup', respond: () => 'raw' })] });
  const result = await agent.invoke('go');
  return {
    message: result.message,
    middlewareUsage: result.middlewareUsage,
    signals: seen,
    details: agent.snapshot().messages[2].content[0].details,
    handlers: registry.describe(ExecuteToolStage).map((entry) => entry.name),
  };
}

module.exports = { run };

if (require.main === module) {
  run({
    core: require('staged-middleware'),
    agentKit: require('staged-middleware/agent'),
    testing: require('staged-middleware/testing'),
  }).then((observed) => console.log(JSON.stringify(observed)));
}
