/**
 * The agent kit's span conventions for `tracing()` (`conventions:
 * [genAiSpans]`): the OpenTelemetry GenAI semantic conventions (v1.41.1, the
 * last release of `open-telemetry/semantic-conventions` that holds them) for
 * the invoke spans of the standard stages (MW-190), `invoke_agent` for
 * AgentStreamStage, `chat` for InvokeModelStage, `execute_tool` for
 * ExecuteToolStage, and one span tree per agent run (MW-192, `agent-runs.ts`).
 * The stages are recognised by identity (one per realm, MW-200); every other
 * stage is left to the next conventions, or to the library's own span.
 *
 * @packageDocumentation
 */
import type { InvokeInfo, InvokeOutcome } from '../../core/index';
import type { InvokeSpan, TracingConventions, TracingSpan } from '../../middleware/index';
import type { AgentStreamContext, ExecuteToolContext, InvokeModelContext } from '../types/stages';
import { AgentStreamStage, ExecuteToolStage, InvokeModelStage } from '../stages';
import { InterruptSignal } from '../session/interrupts';
import { EXTERNAL_TOOL } from '../tools/tool-terminal';
import { joinsAgentRun, opensAgentRun } from './agent-runs';

/**
 * The agent kit's span conventions, for `tracing({ ..., conventions: [genAiSpans] })`: GenAI names, kinds and
 * attributes for the invoke spans of AgentStreamStage, InvokeModelStage and ExecuteToolStage (MW-190), and the model,
 * tool and turn invokes of one agent run nested under its AgentStreamStage terminal span (MW-192).
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { tracing } from 'staged-middleware/middleware';
 *
 * registry.instrument(tracing({ api: otel, conventions: [genAiSpans] }));
 * const assistant = new Agent({ model, tools, registry });
 * ```
 */
export const genAiSpans: TracingConventions = /*#__PURE__*/ Object.freeze({
  invokeSpan: genAiSpan,
  opensRun: opensAgentRun,
  joinsRun: joinsAgentRun,
});

/**
 * The agent kit's span conventions with the reply's attributes, for `tracing({ ..., conventions:
 * [genAiReplySpans] })`: every span of {@link genAiSpans}, and on each
 * `invoke_agent` span a reply id, the run's input messages, its output
 * message, and the questions it halted on (approvals and other questions to
 * a human, and calls of tools run outside the agent), MW-347. The messages are
 * the conversation's content: trace with these conventions only where the
 * spans may hold it.
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { tracing } from 'staged-middleware/middleware';
 *
 * registry.instrument(tracing({ api: otel, conventions: [genAiReplySpans] }));
 * ```
 */
// Marked free of side effects so that a bundle which never names it leaves out its code.
export const genAiReplySpans: TracingConventions = /* @__PURE__ */ Object.freeze({
  invokeSpan: (info: InvokeInfo): InvokeSpan | undefined =>
    info.stage === AgentStreamStage ? replySpan(info.context as Partial<AgentStreamContext>) : genAiSpan(info),
  opensRun: opensAgentRun,
  joinsRun: joinsAgentRun,
});

/** The GenAI attribute names the conventions set. */
const GEN_AI = {
  /** `chat`, `execute_tool` or `invoke_agent`. */
  operation: 'gen_ai.operation.name',
  /** The model's `modelId`. */
  requestModel: 'gen_ai.request.model',
  /** Tokens sent. */
  inputTokens: 'gen_ai.usage.input_tokens',
  /** Tokens generated. */
  outputTokens: 'gen_ai.usage.output_tokens',
  /** The model result's stop reason, as a one-element array. */
  finishReasons: 'gen_ai.response.finish_reasons',
  /** The tool's name. */
  toolName: 'gen_ai.tool.name',
  /** The tool use's id. */
  toolCallId: 'gen_ai.tool.call.id',
  /** The agent's name. */
  agentName: 'gen_ai.agent.name',
  /** The agent's session id. */
  conversationId: 'gen_ai.conversation.id',
  /** A low-cardinality name of the error a span failed with. */
  errorType: 'error.type',
} as const;

/** The reply attributes of `invoke_agent` spans (MW-347), apart from `GEN_AI` so that a bundle without them leaves them out. */
const REPLY = {
  /** The run's input messages, as JSON text. */
  inputMessages: 'gen_ai.input.messages',
  /** The run's output message, as JSON text of a one-element array. */
  outputMessages: 'gen_ai.output.messages',
  /** A new UUID per run. */
  replyId: 'staged.agent.reply_id',
  /** The questions to a human the run halted on, as JSON text. */
  pendingApprovals: 'staged.agent.pending_approvals',
  /** The calls of tools run outside the agent the run halted on, as JSON text. */
  pendingExternalCalls: 'staged.agent.pending_external_calls',
} as const;

/** `SpanKind` of `@opentelemetry/api` (a plain enum there; its values are part of its stable API). */
const SPAN_KIND = { internal: 0, client: 2 } as const;

/** The GenAI span of an invoke of a standard stage, named `<operation> <subject>` (the operation alone without a subject), or undefined for any other stage. */
function genAiSpan(info: InvokeInfo): InvokeSpan | undefined {
  if (info.stage === InvokeModelStage) return chatSpan(info.context as Partial<InvokeModelContext>);
  if (info.stage === ExecuteToolStage) return toolSpan(info.context as Partial<ExecuteToolContext>);
  if (info.stage === AgentStreamStage) return agentSpan(info.context as Partial<AgentStreamContext>);
  return undefined;
}

/** InvokeModelStage: one model call, a client span named after the model. */
function chatSpan(context: Partial<InvokeModelContext>): InvokeSpan {
  const model = text(read(read(context, 'model'), 'modelId'));
  const conversation = text(read(read(context, 'agent'), 'sessionId'));
  return {
    name: model === undefined ? 'chat' : `chat ${model}`,
    kind: SPAN_KIND.client,
    attributes: { [GEN_AI.operation]: 'chat', [GEN_AI.requestModel]: model, [GEN_AI.conversationId]: conversation },
    end: (span, outcome) => {
      if (outcome.status === 'success') {
        const usage = read(outcome.result, 'usage');
        const stopReason = text(read(outcome.result, 'stopReason'));
        span.setAttributes({
          [GEN_AI.inputTokens]: count(read(usage, 'inputTokens')),
          [GEN_AI.outputTokens]: count(read(usage, 'outputTokens')),
          [GEN_AI.finishReasons]: stopReason === undefined ? undefined : [stopReason],
        });
      }
      setErrorType(span, outcome);
    },
  };
}

/** ExecuteToolStage: one tool call, an internal span named after the tool. */
function toolSpan(context: Partial<ExecuteToolContext>): InvokeSpan {
  const toolUse = read(context, 'toolUse');
  const tool = text(read(toolUse, 'name'));
  return {
    name: tool === undefined ? 'execute_tool' : `execute_tool ${tool}`,
    kind: SPAN_KIND.internal,
    attributes: { [GEN_AI.operation]: 'execute_tool', [GEN_AI.toolName]: tool, [GEN_AI.toolCallId]: text(read(toolUse, 'toolUseId')) },
    end: (span, outcome, fail) => {
      // The reference loop answers a tool's throw with an error tool result carrying it: the invoke succeeds, the call failed.
      const result = outcome.status === 'success' ? outcome.result : undefined;
      if (typeof result === 'object' && result !== null && 'error' in result) {
        const { error } = result as { readonly error: unknown };
        fail(span, error);
        span.setAttribute(GEN_AI.errorType, errorType(error) ?? '_OTHER');
        return;
      }
      setErrorType(span, outcome);
    },
  };
}

/** AgentStreamStage: one agent run, an internal span named after the agent. */
function agentSpan(context: Partial<AgentStreamContext>): InvokeSpan {
  const agent = read(context, 'agent');
  const name = text(read(agent, 'name'));
  return {
    name: name === undefined ? 'invoke_agent' : `invoke_agent ${name}`,
    kind: SPAN_KIND.internal,
    attributes: { [GEN_AI.operation]: 'invoke_agent', [GEN_AI.agentName]: name, [GEN_AI.conversationId]: text(read(agent, 'sessionId')) },
    end: (span, outcome) => {
      if (outcome.status === 'success') {
        const usage = read(outcome.result, 'usage');
        span.setAttributes({
          [GEN_AI.inputTokens]: count(read(usage, 'inputTokens')),
          [GEN_AI.outputTokens]: count(read(usage, 'outputTokens')),
        });
      }
      setErrorType(span, outcome);
    },
  };
}

/** AgentStreamStage with the reply's attributes: the span of {@link agentSpan}, and the reply's attributes. */
function replySpan(context: Partial<AgentStreamContext>): InvokeSpan {
  const span = agentSpan(context);
  const randomUUID = read(read(globalThis, 'crypto'), 'randomUUID');
  return {
    ...span,
    attributes: {
      ...span.attributes,
      [REPLY.replyId]:
        typeof randomUUID === 'function' ? text(Reflect.apply(randomUUID, (globalThis as { crypto?: unknown }).crypto, [])) : undefined,
      [REPLY.inputMessages]: Array.isArray(read(context, 'messages')) ? jsonText(read(context, 'messages')) : undefined,
    },
    end: (endSpan, outcome, fail) => {
      span.end?.(endSpan, outcome, fail);
      // A question about the whole run ends the invoke with the signal; a halted turn ends it with its result.
      const result = outcome.status === 'success' ? outcome.result : undefined;
      const message = read(result, 'message');
      const signal = outcome.status === 'error' && InterruptSignal.isInstance(outcome.error) ? outcome.error : undefined;
      const interrupts = outcome.status === 'success' ? read(result, 'interrupts') : signal?.interrupts;
      const asked = Array.isArray(interrupts) ? (interrupts as readonly unknown[]) : [];
      const external = asked.filter((interrupt) => read(interrupt, 'name') === EXTERNAL_TOOL);
      const approvals = asked.filter((interrupt) => read(interrupt, 'name') !== EXTERNAL_TOOL);
      endSpan.setAttributes({
        [REPLY.outputMessages]: message === undefined ? undefined : jsonText([message]),
        [REPLY.pendingApprovals]:
          approvals.length === 0
            ? undefined
            : jsonText(
                approvals.map((interrupt) => ({
                  id: read(interrupt, 'id'),
                  name: read(interrupt, 'name'),
                  reason: read(interrupt, 'reason'),
                })),
              ),
        [REPLY.pendingExternalCalls]: external.length === 0 ? undefined : jsonText(external.map((interrupt) => read(interrupt, 'reason'))),
      });
    },
  };
}

/** The JSON text of a value, or undefined when it has none (an instrumentation must not fail the invoke). */
function jsonText(value: unknown): string | undefined {
  try {
    const json: unknown = JSON.stringify(value);
    return typeof json === 'string' ? json : undefined;
  } catch {
    return undefined;
  }
}

/** `error.type` for a failed invoke (`tracing` has marked the span failed); an interrupt is no failure, so it gets none. */
function setErrorType(span: TracingSpan, outcome: InvokeOutcome): void {
  if (outcome.status !== 'error') return;
  const type = errorType(outcome.error);
  if (type !== undefined) span.setAttribute(GEN_AI.errorType, type);
}

/**
 * A low-cardinality name of an error, as `error.type` wants it: a string
 * `code` (the library's codes, Node's system errors), else an `Error`'s
 * `name`, else `_OTHER`; undefined for an interrupt.
 */
function errorType(error: unknown): string | undefined {
  if (InterruptSignal.isInstance(error)) return undefined;
  const code = text(read(error, 'code'));
  if (code !== undefined) return code;
  return error instanceof Error ? error.name : '_OTHER';
}

/**
 * A property of a value that may be anything a caller passed: undefined for a
 * non-object, and for a getter that throws (an instrumentation must not fail the invoke).
 */
function read(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** A non-empty string, else undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A finite number, else undefined. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
