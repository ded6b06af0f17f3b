/**
 * Runs one traced agent run (a model call retried after a 503, one tool
 * call) and prints the span tree a backend shows: the "Tracing with
 * OpenTelemetry" picture of docs/middleware.md, compared by its test.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Agent, InvokeModelStage } from '../src/agent/index';
import { retry } from '../src/middleware/index';
import { failingTurn, ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../src/testing/index';
import { tracedRegistry } from './tracing';

/** A scripted model that names itself as a provider's model does. */
class Gpt4o extends ScriptedModel {
  readonly modelId = 'gpt-4o';
}

/** Spans in the order they started. */
const started: ReadableSpan[] = [];
const recorder: SpanProcessor = {
  onStart: (span) => void started.push(span),
  onEnd: () => undefined,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

/** What a backend shows of a span besides its name. */
function detail(span: ReadableSpan): string {
  const { attributes: a } = span;
  const parts: string[] = [];
  if (a['gen_ai.usage.input_tokens'] !== undefined)
    parts.push(`${String(a['gen_ai.usage.input_tokens'])} in / ${String(a['gen_ai.usage.output_tokens'])} out tokens`);
  if (a['gen_ai.tool.call.id'] !== undefined) parts.push(`call ${String(a['gen_ai.tool.call.id'])}`);
  if (span.status.code === SpanStatusCode.ERROR) parts.push(`ERROR ${span.status.message ?? ''}`);
  return parts.length === 0 ? '' : `  (${parts.join(', ')})`;
}

/** The tree below `parent`, drawn with box characters. */
function draw(parent: string | undefined, indent: string): string[] {
  const children = started.filter((span) => span.parentSpanContext?.spanId === parent);
  return children.flatMap((span, index) => {
    const last = index === children.length - 1;
    const line = parent === undefined ? `${span.name}${detail(span)}` : `${indent}${last ? '└─ ' : '├─ '}${span.name}${detail(span)}`;
    const below = parent === undefined ? '' : `${indent}${last ? '   ' : '│  '}`;
    return [line, ...draw(span.spanContext().spanId, below)];
  });
}

const registry = tracedRegistry(recorder);
registry.add(InvokeModelStage.Wrap, retry({ backoff: () => 0 }));
const overloaded = Object.assign(new Error('Service Unavailable'), { status: 503 });
const model = new Gpt4o([
  failingTurn(overloaded),
  toolUseTurn([{ name: 'weather', input: { city: 'Oslo' }, toolUseId: 'call-1' }], {
    usage: { inputTokens: 52, outputTokens: 12, totalTokens: 64 },
  }),
  textTurn('Sunny in Oslo.', { usage: { inputTokens: 80, outputTokens: 6, totalTokens: 86 } }),
]);
const weather = new ScriptedTool({ name: 'weather', outcomes: [{ value: 'sunny' }] });
await new Agent({ name: 'assistant', model, tools: [weather], registry }).invoke('Weather in Oslo?');
console.log(draw(undefined, '').join('\n'));
