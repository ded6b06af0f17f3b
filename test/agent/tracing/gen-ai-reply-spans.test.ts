/**
 * AgentScope's TracingMiddleware records on each reply its id, its input and
 * output messages and the tool calls it waits for; `genAiReplySpans` puts
 * them on the run's `invoke_agent` span.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import { Agent, AgentStreamStage, genAiReplySpans, genAiSpans, type Tool } from '../../../src/agent/index';
import { tracing, type TracingConventions } from '../../../src/middleware/index';
import { textTurn, toolUseTurn, type ScriptedTurn } from '../../../src/testing/index';
import { NamedModel, recording } from './gen-ai-recording';

/** The reply attributes of MW-347, as the spans of `conventions` hold them, one object per `invoke_agent` span. */
async function replies(
  conventions: TracingConventions,
  turns: ScriptedTurn[],
  run: (agent: Agent) => Promise<unknown>,
  setup?: (registry: MiddlewareRegistry) => void,
  tools: Tool[] = [],
): Promise<Record<string, unknown>[]> {
  const { exporter, tracer } = recording();
  const registry = new MiddlewareRegistry();
  registry.instrument(tracing({ tracer, conventions: [conventions] }));
  setup?.(registry);
  await run(new Agent({ name: 'assistant', model: new NamedModel(turns), tools, registry }));
  const keys = [
    'staged.agent.reply_id',
    'gen_ai.input.messages',
    'gen_ai.output.messages',
    'staged.agent.pending_approvals',
    'staged.agent.pending_external_calls',
  ];
  return exporter
    .getFinishedSpans()
    .filter((span) => span.name === 'invoke_agent assistant')
    .map((span) => Object.fromEntries(keys.filter((key) => key in span.attributes).map((key) => [key, span.attributes[key]])));
}

const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u) as unknown;

/** A tool that asks a human before it runs (AgentScope's HITL confirmation), and one the caller runs. */
const tools = (): Tool[] => [
  {
    spec: { name: 'refund', description: 'Refunds.', inputSchema: { type: 'object' } },
    run: (input, context) => context.interrupt({ name: 'confirm', reason: { question: 'Refund?', input } }).response,
  },
  { spec: { name: 'geolocate', description: "The browser's position.", inputSchema: { type: 'object' } } },
];

describe('genAiReplySpans', () => {
  describe('two replies of one agent', () => {
    it('records each reply with an id of its own, its input messages and its output message', async () => {
      const spans = await replies(genAiReplySpans, [textTurn('Hello.'), textTurn('Fine.')], async (agent) => {
        await agent.invoke('Hi.');
        await agent.invoke('How are you?');
      });
      expect([spans, spans[0]?.['staged.agent.reply_id'] === spans[1]?.['staged.agent.reply_id']]).toEqual([
        [
          {
            'staged.agent.reply_id': UUID,
            'gen_ai.input.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Hi.' }] }]),
            'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }]),
          },
          {
            'staged.agent.reply_id': UUID,
            'gen_ai.input.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'How are you?' }] }]),
            'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', content: [{ type: 'text', text: 'Fine.' }] }]),
          },
        ],
        false,
      ]);
    });
  });

  describe('a reply that waits for a confirmation and for a tool run outside the agent, then its resume', () => {
    it('records the pending calls on the halted reply, and none on the resumed one', async () => {
      const turns = [
        toolUseTurn([
          { name: 'refund', input: { amount: 5 }, toolUseId: 'r1' },
          { name: 'geolocate', input: {}, toolUseId: 'g1' },
        ]),
        textTurn('Refunded.'),
      ];
      const spans = await replies(
        genAiReplySpans,
        turns,
        async (agent) => {
          const halted = await agent.invoke('Refund 5 EUR where I am.');
          await agent.resume(Object.fromEntries(halted.interrupts.map((interrupt) => [interrupt.id, 'ok'])));
        },
        undefined,
        tools(),
      );
      expect(spans.map((span) => [span['staged.agent.pending_approvals'], span['staged.agent.pending_external_calls']])).toEqual([
        [
          JSON.stringify([{ id: 'executeTool:r1:confirm', name: 'confirm', reason: { question: 'Refund?', input: { amount: 5 } } }]),
          JSON.stringify([{ type: 'toolUse', name: 'geolocate', toolUseId: 'g1', input: {} }]),
        ],
        [undefined, undefined],
      ]);
    });
  });

  describe('a question about the whole run', () => {
    it('records it as a pending approval, and no output message', async () => {
      const spans = await replies(
        genAiReplySpans,
        [textTurn('never')],
        (agent) => agent.invoke('Go.'),
        (registry) =>
          registry.add(AgentStreamStage.Input, function askFirst(context) {
            context.interrupt({ name: 'proceed', reason: 'Start the run?' });
            return context;
          }),
      );
      expect(spans).toEqual([
        {
          'staged.agent.reply_id': UUID,
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Go.' }] }]),
          'staged.agent.pending_approvals': JSON.stringify([{ id: 'agentStream:proceed', name: 'proceed', reason: 'Start the run?' }]),
        },
      ]);
    });
  });

  describe('a question whose reason has no JSON text', () => {
    it('leaves the attribute out and the run unchanged', async () => {
      let stopReason: unknown;
      const spans = await replies(
        genAiReplySpans,
        [textTurn('never')],
        async (agent) => {
          stopReason = (await agent.invoke('Go.')).stopReason;
        },
        (registry) =>
          registry.add(AgentStreamStage.Input, function askFirst(context) {
            context.interrupt({ name: 'proceed', reason: 10n });
            return context;
          }),
      );
      expect([stopReason, Object.keys(spans[0] ?? {})]).toEqual(['interrupt', ['staged.agent.reply_id', 'gen_ai.input.messages']]);
    });
  });

  describe('genAiSpans', () => {
    it('records none of the reply attributes', async () => {
      const spans = await replies(genAiSpans, [textTurn('Hello.')], (agent) => agent.invoke('Hi.'));
      expect(spans).toEqual([{}]);
    });
  });
});
