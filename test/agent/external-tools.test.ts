import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage, EXTERNAL_TOOL, genAiSpans, type Tool, type ToolResultBlock } from '../../src/agent/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';
import { tracing } from '../../src/middleware/index';

/** A tool the caller runs itself: a spec and no run. */
const locate: Tool = { spec: { name: 'locate', description: 'Where the user is, from the browser.', inputSchema: { type: 'object' } } };

function externalAgent(registry = new MiddlewareRegistry()) {
  const model = new ScriptedModel([
    toolUseTurn([{ name: 'locate', input: { precise: true }, toolUseId: 'g1' }]),
    textTurn('You are in Oslo.'),
  ]);
  return new Agent({ model, registry, tools: [locate] });
}

/** The tool result the resumed run appended. */
const resultOf = (agent: Agent): ToolResultBlock => agent.messages[2]?.content[0] as ToolResultBlock;

describe('Agent', () => {
  describe('an external tool', () => {
    it('halts with the call as an interrupt named EXTERNAL_TOOL, its reason the frozen tool use', async () => {
      const agent = externalAgent();
      const halted = await agent.invoke('Where am I?');
      const [pending] = halted.interrupts;
      expect([halted.stopReason, pending, Object.isFrozen(pending?.reason), EXTERNAL_TOOL]).toEqual([
        'interrupt',
        {
          id: 'executeTool:g1:externalTool',
          name: 'externalTool',
          reason: { type: 'toolUse', toolUseId: 'g1', name: 'locate', input: { precise: true } },
        },
        true,
        'externalTool',
      ]);
    });

    it.each<[string, unknown, ToolResultBlock]>([
      [
        'a string as text',
        'Oslo',
        { type: 'toolResult', toolUseId: 'g1', name: 'locate', status: 'success', content: [{ type: 'text', text: 'Oslo' }] },
      ],
      [
        'another value as JSON',
        { city: 'Oslo', at: new Date(0) },
        {
          type: 'toolResult',
          toolUseId: 'g1',
          name: 'locate',
          status: 'success',
          content: [{ type: 'json', json: { city: 'Oslo', at: '1970-01-01T00:00:00.000Z' } }],
        },
      ],
      [
        'a value JSON cannot carry as an error result',
        { n: 1n },
        {
          type: 'toolResult',
          toolUseId: 'g1',
          name: 'locate',
          status: 'error',
          content: [{ type: 'text', text: 'Tool "locate" returned a value that is not JSON: value.n is a BigInt' }],
        },
      ],
    ])("sends the result the caller resumes with as the tool's value: %s", async (_name, value, expected) => {
      const agent = externalAgent();
      await agent.invoke('Where am I?');
      const result = await agent.resume({ 'executeTool:g1:externalTool': value });
      expect([result.stopReason, resultOf(agent)]).toEqual(['endTurn', expected]);
    });

    it('lets ExecuteToolStage handlers see the call and, on the resume, its result', async () => {
      const registry = new MiddlewareRegistry();
      const seen: string[] = [];
      registry.add(ExecuteToolStage.Wrap, async function* audit(context, next) {
        seen.push(`call ${context.toolUse.name}`);
        for await (const event of next()) {
          if (event.type === 'toolResult') seen.push(`result ${JSON.stringify(event.toolResult.content)}`);
          yield event;
        }
      });
      const agent = externalAgent(registry);
      await agent.invoke('Where am I?');
      await agent.resume({ 'executeTool:g1:externalTool': 'Oslo' });
      expect(seen).toEqual(['call locate', 'call locate', 'result [{"type":"text","text":"Oslo"}]']);
    });

    it('is traced when its result arrives: an execute_tool span and its terminal layer, ended without error', async () => {
      const exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer: provider.getTracer('test'), conventions: [genAiSpans] }));
      const agent = externalAgent(registry);
      await agent.invoke('Where am I?');
      exporter.reset();
      await agent.resume({ 'executeTool:g1:externalTool': 'Oslo' });
      const spans = exporter.getFinishedSpans().filter((span) => span.attributes['staged.stage'] === 'executeTool');
      expect(spans.map((span) => [span.name, span.status.code])).toEqual([
        ['executeTool terminal', 0],
        ['execute_tool locate', 0],
      ]);
    });
  });
});
