/**
 * The OpenTelemetry GenAI semantic conventions (v1.41.1, the last release of
 * `open-telemetry/semantic-conventions` that holds them) for the invoke spans
 * of the agent kit's standard stages (MW-190): `invoke_agent` for
 * AgentStreamStage, `chat` for InvokeModelStage, `execute_tool` for
 * ExecuteToolStage. The stages are recognised by identity (one per realm,
 * MW-200); every other stage keeps the library's own span.
 *
 * @packageDocumentation
 */
import type { InvokeInfo, InvokeOutcome } from '../core/index';
import type { AgentStreamContext, ExecuteToolContext, InvokeModelContext } from '../agent/types/stages';
import { AgentStreamStage, ExecuteToolStage, InvokeModelStage } from '../agent/stages';
import { InterruptSignal } from '../agent/session/interrupts';
import type { Attributes, Span } from './otel-types';
import type { FailSpan } from './span-failures';

/** The GenAI attribute names `tracing` sets. */
export const GEN_AI = {
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

/** `SpanKind` of `@opentelemetry/api` (a plain enum there; its values are part of its stable API). */
const SPAN_KIND = { internal: 0, client: 2 } as const;

/** What a standard stage's invoke span is called and carries. */
export interface GenAiSpan {
  /** The span name, `<operation> <subject>` (the operation alone without a subject). */
  readonly name: string;
  /** The span kind. */
  readonly kind: number;
  /** Attributes known when the invoke starts. */
  readonly attributes: Attributes;
  /** Sets the attributes only the outcome tells, and fails the span when the outcome is a failure the core does not see. */
  readonly end: (span: Span, outcome: InvokeOutcome, fail: FailSpan) => void;
}

/** The GenAI span of an invoke of a standard stage, or undefined for any other stage. */
export function genAiSpan(info: InvokeInfo): GenAiSpan | undefined {
  if (info.stage === InvokeModelStage) return chatSpan(info.context as Partial<InvokeModelContext>);
  if (info.stage === ExecuteToolStage) return toolSpan(info.context as Partial<ExecuteToolContext>);
  if (info.stage === AgentStreamStage) return agentSpan(info.context as Partial<AgentStreamContext>);
  return undefined;
}

/** InvokeModelStage: one model call, a client span named after the model. */
function chatSpan(context: Partial<InvokeModelContext>): GenAiSpan {
  const model = text(read(read(context, 'model'), 'modelId'));
  const conversation = text(read(read(context, 'agent'), 'sessionId'));
  return {
    name: model === undefined ? 'chat' : `chat ${model}`,
    kind: SPAN_KIND.client,
    attributes: { [GEN_AI.operation]: 'chat', [GEN_AI.requestModel]: model, [GEN_AI.conversationId]: conversation },
    end: (span, outcome, fail) => {
      if (outcome.status === 'success') {
        const usage = read(outcome.result, 'usage');
        const stopReason = text(read(outcome.result, 'stopReason'));
        span.setAttributes({
          [GEN_AI.inputTokens]: count(read(usage, 'inputTokens')),
          [GEN_AI.outputTokens]: count(read(usage, 'outputTokens')),
          [GEN_AI.finishReasons]: stopReason === undefined ? undefined : [stopReason],
        });
      }
      endFailure(span, outcome, fail);
    },
  };
}

/** ExecuteToolStage: one tool call, an internal span named after the tool. */
function toolSpan(context: Partial<ExecuteToolContext>): GenAiSpan {
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
      endFailure(span, outcome, fail);
    },
  };
}

/** AgentStreamStage: one agent run, an internal span named after the agent. */
function agentSpan(context: Partial<AgentStreamContext>): GenAiSpan {
  const agent = read(context, 'agent');
  const name = text(read(agent, 'name'));
  return {
    name: name === undefined ? 'invoke_agent' : `invoke_agent ${name}`,
    kind: SPAN_KIND.internal,
    attributes: { [GEN_AI.operation]: 'invoke_agent', [GEN_AI.agentName]: name, [GEN_AI.conversationId]: text(read(agent, 'sessionId')) },
    end: (span, outcome, fail) => {
      if (outcome.status === 'success') {
        const usage = read(outcome.result, 'usage');
        span.setAttributes({
          [GEN_AI.inputTokens]: count(read(usage, 'inputTokens')),
          [GEN_AI.outputTokens]: count(read(usage, 'outputTokens')),
        });
      }
      endFailure(span, outcome, fail);
    },
  };
}

/** `error.type` for a failed invoke; an interrupt is no failure, so it gets none. */
function endFailure(span: Span, outcome: InvokeOutcome, fail: FailSpan): void {
  if (outcome.status !== 'error') return;
  fail(span, outcome.error);
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
