/**
 * What an agent loop can do beyond the base loop, as agent cases name it in
 * `needs` and a loop claims it (`AGENT_CAPABILITIES`, exported by
 * `staged-middleware/conformance`).
 *
 * @packageDocumentation
 */

/**
 * What an agent loop can do beyond the base loop (model calls through
 * InvokeModelStage, tool calls through ExecuteToolStage, with the registry,
 * model and tools given, and a history to read afterwards). A case lists the
 * ones it needs in `needs`; a loop claims the ones it has.
 */
export const AGENT_CAPABILITIES = {
  systemPrompt: 'the loop takes a system prompt and puts it in every InvokeModelStage context (MW-109)',
  initialMessages: 'a conversation can start from given messages (MW-104)',
  modelState: 'the loop keeps a model state, readable and assignable, bound as the state of every InvokeModelStage invoke (MW-108)',
  invocationState: "a run takes the caller's invocation state and shares it with every handler and tool (MW-105)",
  rollback: 'a run that fails leaves the conversation and the model state as they were (MW-116)',
  agentStream:
    'a run is one AgentStreamStage invoke ending with an agentResult event (MW-103, MW-119), and what the loop hands out is frozen (MW-105)',
  interrupts:
    'tools and handlers can halt a run with interrupt(), one question or several at once, external tools halt it for the caller, interrupt events come as questions are raised, and a later run resumes it (MW-113, MW-114, MW-132, MW-133, MW-135)',
  cancel: "a run ends with stopReason 'cancelled' when cancelled or when its signal aborts (MW-115)",
  runChecks: 'a run copies and checks what it is given and refuses a second run while one is going (MW-106, MW-117)',
  turnControl:
    "the loop invokes TurnStage after each turn and acts on its decision, and a run stopped early (by a turn decision, stopReason 'stopped', or by an AgentStreamStage Wrap handler) keeps its input and completed turns (MW-125 – MW-128)",
  agentInterrupts:
    "the AgentStreamStage context's interrupt() halts the whole run, responses may be given with a fresh run's input, a run's responses live as long as the run and its resumes, and a question after the result is refused (MW-131, MW-134)",
  snapshots:
    'the conversation state is a versioned JSON snapshot a new conversation goes on from, saved to a session store (MW-136, MW-137)',
  agentView: 'the loop takes a name and gives every context it builds the same frozen agent view (MW-138)',
  maxTurns:
    "the loop takes a turn limit and ends a run whose decision would go on past it with stopReason 'maxTurns', and it yields to the event loop with a macrotask before every turn, so a timer can cancel a run whose model answers at once (MW-142, MW-143)",
  agentMiddleware:
    "the loop runs the agent middleware of section 5c: it offers the model the tools bundles contribute under ToolsKey (a run's own bundles and inheritTools included), compresses its context through CompressContextStage when it exceeds the ContextBudgetKey budget and emits contextCompressed, and reports the model calls middleware made as the agentResult's middlewareUsage (MW-160 – MW-174)",
  aiSdk:
    "the implementation has the AI SDK adapter (MW-186 – MW-188): the loop runs on a model fromAiSdk made of the kit's scripted AI SDK language model, and gives the setup's toolChoice to every model call; its tools can be AI SDK tools wrapped by wrapAiSdkTools (MW-304 – MW-308)",
  tracing:
    "the loop's runs, model calls and tool calls are the AgentStreamStage, InvokeModelStage and ExecuteToolStage invokes whose contexts carry what the GenAI spans name (the agent view, the model, the tool use), so tracing its registry gives one span tree per run (MW-190 – MW-192)",
  durable:
    "a run can be a durable run over a step runner (MW-240 – MW-252): every model call and tool call is a step of the durable layer, a replay yields what the steps recorded without calling the model or the tool, interrupts become the runner's durable waits, and the run ends with the step agentStream:end; the loop is started again, fresh from the setup, in each process of the case",
  mcp: "the implementation has MCP toolsets (MW-319 – MW-324): a case's mcp bundles are toolsets over the kit's scripted MCP client, contributing the server's tools under ToolsKey as agentMiddleware's bundles do",
} as const;

/** One capability of an agent loop (see {@link AGENT_CAPABILITIES}). */
export type AgentCapability = keyof typeof AGENT_CAPABILITIES;
