/**
 * What an agent case registers, as zod schemas: handlers from the vocabulary
 * (what each `do` means is in the runner, `../agent/`), and bundles of the
 * agent middleware or of scripted tools.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { json } from './case-base';
import { tool, turn } from './agent-doubles';

/** The standard stages a handler is registered on. */
export const stageName = z.enum(['agentStream', 'invokeModel', 'executeTool', 'turn', 'compressContext']);

/** One handler from the vocabulary. */
export const handler = z
  .strictObject({
    stage: stageName,
    phase: z.enum(['input', 'wrap', 'output']),
    do: z.enum([
      'appendSystemText',
      'replaceSystemPrompt',
      'pushMessage',
      'nextWithExtraMessage',
      'setModelState',
      'retry',
      'hedge',
      'setStopReason',
      'replaceText',
      'fail',
      'block',
      'approval',
      'observe',
      'observeFrozen',
      'observeFinally',
      'countInvocationState',
      'replaceInput',
      'respond',
      'passThrough',
      'action',
      'badResult',
      'stopAfter',
      'failAfterResult',
      'observeAgent',
      'gate',
      'lateInterrupt',
      'observeState',
      'errorsAsAnswers',
      'dropResult',
      'observeCode',
      'blockWithoutName',
      'liveRetry',
      'builtinRetry',
      'afterToolCall',
      'checkFinalAnswer',
      'keepLast',
      'observeCaller',
      'observeModelState',
      'convertToLlm',
      'observeCompressed',
      'observeText',
      'countWithKey',
      'stopInProcess',
      'approvalPolicy',
      'stopWhen',
      'maxTurns',
      'stopAfterTool',
      'prepareTurn',
      'observeStateKey',
      'clearToolResults',
      'toolEmulator',
      'toolSelector',
      'dynamicSystemPrompt',
      'promptCaching',
      'extraCall',
    ]),
    text: z.string().optional(),
    value: json.optional(),
    when: z.enum(['before', 'after']).optional(),
    attempts: z.number().int().positive().optional(),
    pattern: z.string().optional(),
    replacement: z.string().optional(),
    message: z.string().optional(),
    tool: z.string().optional(),
    name: z.string().optional(),
    reason: json.optional(),
    presupplied: z.string().optional().describe('invocationState key holding a pre-supplied response'),
    action: z
      .strictObject({
        decision: json.optional().describe('Given as it is, so that a case can give one MW-127 refuses (null, an unknown string)'),
        inject: z.array(json).optional(),
        onRunEnd: z.array(json).optional(),
        reason: z.string().optional(),
        response: json.optional().describe('An assistant message to put in the place of the message of the turn (MW-340), given as it is'),
      })
      .optional()
      .describe('turn.wrap.action: the turn action its decide function (named name) returns'),
    observeSignal: z
      .boolean()
      .optional()
      .describe(
        'turn.wrap.action and executeTool.output.afterToolCall: the decide function or hook also observes "<name> signal=<bool> aborted=<bool>": whether the call it receives carries a cancellation signal, and whether it is aborted (MW-341)',
      ),
    turns: z
      .array(z.number().int().positive())
      .optional()
      .describe('turn.wrap.action: the turn indexes it acts at (every turn when absent)'),
    spread: z.boolean().optional().describe('agentStream gate: asks through a spread copy of the context'),
    critical: z.array(z.string()).optional().describe('errorsAsAnswers: the messages of the errors that are critical'),
    id: z.string().optional().describe('The id the handler is registered with'),
    replace: z.boolean().optional().describe('Registered with replace: true'),
    patch: json
      .optional()
      .describe(
        'executeTool.output.afterToolCall: the patch its hook (named name) returns for the tool use whose id is tool (every one when absent); it observes "<name> <toolUseId>"',
      ),
    nonCritical: z.boolean().optional().describe('invokeModel.wrap.checkFinalAnswer: critical false'),
    checked: z.boolean().optional().describe('invokeModel.input.countWithKey: the key has a schema of counts'),
    policy: z
      .record(z.string(), json)
      .optional()
      .describe('executeTool.wrap.approvalPolicy: the policy, by tool name (true, false or a rule { when?, decisions?, description? })'),
    limit: z.number().optional().describe('turn.wrap.maxTurns: n'),
    preparation: z
      .record(z.string(), json)
      .optional()
      .describe('invokeModel.input.prepareTurn: what prepare returns at the turns listed in turns (undefined at the others)'),
    keep: z.number().int().nonnegative().optional().describe('invokeModel.input.clearToolResults: keep'),
    triggerTokens: z.number().optional().describe('invokeModel.input.clearToolResults: triggerTokens'),
    placeholder: z.string().optional().describe('invokeModel.input.clearToolResults: placeholder'),
    excludeTools: z.array(z.string()).optional().describe('invokeModel.input.clearToolResults: excludeTools'),
    countMessages: z
      .boolean()
      .optional()
      .describe('invokeModel.input.clearToolResults: countTokens counts one token per message instead of estimateTokens'),
    emulate: z.array(z.string()).optional().describe('executeTool.wrap.toolEmulator: the tools it plays (every tool when absent)'),
    model: z
      .array(turn)
      .optional()
      .describe('executeTool.wrap.toolEmulator: its scripted model turns, recorded as childModelCalls under toolEmulator'),
    maxTools: z.number().int().positive().optional().describe('invokeModel.input.toolSelector: maxTools'),
    alwaysInclude: z.array(z.string()).optional().describe('invokeModel.input.toolSelector: alwaysInclude'),
    cacheType: z.string().optional().describe('invokeModel.input.promptCaching: cacheType'),
  })
  .describe('A handler; see the runner for what each "do" means');

/** A hook of a `defined` bundle: the handler a handler of the vocabulary registers, with ordering options. */
export const hook = handler
  .extend({
    order: z.number().optional().describe('The hook option order'),
    before: z.array(z.string()).optional().describe('The hook option before'),
    after: z.array(z.string()).optional().describe('The hook option after'),
  })
  .describe(
    'A hook of a defined bundle (MW-315): the handler { stage, phase, do, ... } registers, with the options id, order, before, after',
  );

/** How the scripted MCP client answers one `tools/call` (MW-320 – MW-323). */
const mcpAnswer = z
  .strictObject({
    result: json.optional().describe('The result of tools/call, as the client resolves it'),
    rpcError: z
      .strictObject({ code: z.number().int(), message: z.string() })
      .optional()
      .describe('Rejects with an Error named McpError carrying this JSON-RPC code, as the server answered with an error'),
    disconnected: z.string().optional().describe('Rejects with Error(<this>) and no code, as a client that lost its server'),
    hang: z
      .boolean()
      .optional()
      .describe('Waits for the call signal; when it aborts, observes "mcp cancelled <name>" and rejects with an McpError of code -32001'),
    cancelLater: z.enum(['agent', 'signal']).optional().describe('As for a model turn: cancels the run once the call waits'),
  })
  .describe('One answer of the scripted MCP client (the last repeating); none of result, rpcError, disconnected, hang: a text "ok"');

/** The server behind the scripted MCP client of an `mcp` bundle. */
const mcpServer = z
  .strictObject({
    name: z.string().optional().describe('The name getServerVersion() gives (absent: the client has no getServerVersion)'),
    tools: z.array(json).describe('What tools/list lists, as JSON (so a malformed entry can be given)'),
    pageSize: z.number().int().positive().optional().describe('Lists this many tools per page, with nextCursor "<index of the next>"'),
    listError: mcpAnswer.optional().describe('tools/list rejects as this answer says (rpcError or disconnected)'),
    answers: z
      .record(z.string(), z.array(mcpAnswer))
      .optional()
      .describe('By tool name (as the server lists it): the answers of its calls'),
    changeAfterCalls: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('After answering this many calls, the server lists nextTools and sends notifications/tools/list_changed'),
    nextTools: z.array(json).optional().describe('What tools/list lists after the change'),
  })
  .describe('The scripted MCP client: observes "mcp list <cursor | first>" and "mcp call <name> <JSON of the arguments>"');

/** A bundle of the agent middleware (section 5c) or of scripted tools. */
export const bundle = z
  .strictObject({
    kind: z.enum([
      'tools',
      'todoList',
      'compaction',
      'subagent',
      'budget',
      'throwing',
      'modelCallLimit',
      'toolCallLimit',
      'pii',
      'defined',
      'mcp',
    ]),
    name: z.string().optional().describe("tools, defined, mcp: the bundle's name; subagent: the tool's and child's name"),
    tools: z.array(tool).optional().describe("tools, defined: the scripted tools it contributes; subagent: the child's tools"),
    hooks: z.array(hook).optional().describe('defined: the hooks of the definition, each under the key of its stage and its phase'),
    unknownKey: z.string().optional().describe('defined: a key of that name, holding {}, added to the definition'),
    maxTokens: z.number().optional().describe('compaction, budget: the budget'),
    keepRecent: z.number().int().nonnegative().optional().describe('compaction'),
    countMessages: z.boolean().optional().describe('compaction, budget: count one token per message instead of estimateTokens'),
    instructions: z.string().optional().describe('compaction: summarize.instructions; todoList: instructions'),
    staleAfter: z.number().int().positive().optional().describe('todoList'),
    finishGuard: z.number().int().positive().optional().describe('todoList'),
    escalateAfter: z.number().int().positive().optional().describe('todoList'),
    keepRecentTokens: z.number().int().positive().optional().describe('compaction'),
    minMessages: z.number().int().positive().optional().describe('compaction'),
    maxSummaryTokens: z.number().int().positive().optional().describe('compaction'),
    pruneToolOutputs: z.number().int().positive().optional().describe('compaction'),
    carrySummary: z.boolean().optional().describe('compaction'),
    fallback: z.boolean().optional().describe('compaction'),
    maxFailures: z.number().int().positive().optional().describe('compaction'),
    minSavings: z.number().optional().describe('compaction'),
    description: z.string().optional().describe('subagent: the tool description (default "Delegates a task.")'),
    systemPrompt: z.string().optional().describe("subagent: the child's system prompt"),
    model: z.array(turn).optional().describe("subagent: the child's scripted model turns"),
    inherit: z.enum(['handlers', 'none']).optional().describe('subagent'),
    inputSchema: z
      .record(z.string(), json)
      .optional()
      .describe('subagent: input, the zod schema z.fromJSONSchema makes of this JSON Schema'),
    result: z.enum(['text', 'details']).optional().describe('subagent'),
    events: z.boolean().optional().describe('subagent'),
    runLimit: z.number().int().positive().optional().describe('modelCallLimit, toolCallLimit'),
    sessionLimit: z.number().int().positive().optional().describe('modelCallLimit, toolCallLimit'),
    tool: z.string().optional().describe('toolCallLimit: the tool whose calls count (every tool when absent)'),
    onLimit: z.enum(['answer', 'end']).optional().describe('toolCallLimit'),
    types: z.array(z.string()).optional().describe('pii: the built-in types'),
    patterns: z
      .array(z.strictObject({ name: z.string(), source: z.string(), maxLength: z.number().int().positive().optional() }))
      .optional()
      .describe('pii: patterns of its own, each pattern new RegExp(source)'),
    input: z.enum(['redact', 'mask', 'hash', 'block']).optional().describe('pii'),
    output: z.enum(['redact', 'mask', 'hash', 'block']).optional().describe('pii'),
    toolResults: z.enum(['redact', 'mask', 'hash', 'block']).optional().describe('pii'),
    server: mcpServer.optional().describe('mcp: the server its scripted client talks to'),
    prefix: z.string().optional().describe('mcp: the option prefix'),
    needsApproval: z.boolean().optional().describe('mcp: the option needsApproval'),
    closed: z.boolean().optional().describe('mcp: the toolset is closed (toolset.close()) as soon as it is made'),
    scope: z.enum(['agent', 'parent']).optional().describe("Where it is registered: the agent's registry (default) or its parent registry"),
  })
  .describe('A bundle registered with registry.use (throwing: its setup throws Error("setup failed"))');

/** One handler of a case. */
export type AgentCaseHandler = z.infer<typeof handler>;
/** One bundle of a case. */
export type AgentCaseBundle = z.infer<typeof bundle>;
