/**
 * `npm run demo -- --long`: a longer conversation with the agent middleware.
 * The history of an earlier chat is compacted mid-run by `compaction` (its
 * summary call goes through InvokeModelStage, made by `compaction`), and a
 * sub-agent (`subagent`) answers a question the agent delegates to it, its
 * stages nested in the parent's tool call.
 *
 * In your own code, import from 'staged-middleware/agent'; the demo imports
 * the sources so it runs without a build.
 */
import { MiddlewareRegistry } from '../src/core/index';
import { Agent, compaction, subagent, type AgentResultEvent, type Message, type Usage } from '../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../src/testing/index';
import { renderEntry, timeline, type TimelineEntry } from './timeline';

/** How the long demo prints. */
export interface LongRunOptions {
  /** ANSI colours. */
  readonly color: boolean;
  /** Receives each output line. */
  readonly write: (line: string) => void;
}

/** What the long demo produced, for tests. */
export interface LongRunOutcome {
  /** Every timeline entry, in order (model stream events included). */
  readonly entries: readonly TimelineEntry[];
  /** The agent's result. */
  readonly result: AgentResultEvent;
  /** The agent's history after the run. */
  readonly messages: readonly Message[];
  /** The requests each model received: the agent's, the summariser's and the sub-agent's. */
  readonly requests: { readonly agent: number; readonly summarizer: readonly Message[][]; readonly shipping: number };
}

const usage = (inputTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
});
const say = (role: 'user' | 'assistant', text: string): Message => ({ role, content: [{ type: 'text', text }] });

/** An earlier chat about the same order: what compaction will summarise. */
const EARLIER: readonly Message[] = [
  say('user', 'Hi, I ordered a desk lamp last week, order A-1042.'),
  say('assistant', 'Thanks! I see order A-1042: one desk lamp, paid, being packed.'),
  say('user', 'Can you ship it to my office instead, 12 Quay Street?'),
  say('assistant', 'Done: A-1042 now ships to 12 Quay Street.'),
  say('user', 'Great. Please also add a gift note saying "Happy birthday, Sam".'),
  say('assistant', 'The gift note is added to A-1042, and the receipt will not show prices.'),
];

/** The model-call lines of the timeline the long demo leaves out, so the nesting shows: stream events. */
const STREAM_EVENTS = /^(messageStart|messageStop|text |toolUseStart|toolUseDelta|usage |system prompt )/;

/** Runs the long demo, writing the timeline and a usage summary through `options.write`. */
export async function runLongDemo(options: LongRunOptions): Promise<LongRunOutcome> {
  const agentModel = new ScriptedModel([
    toolUseTurn([{ name: 'lookup_order', input: { orderId: 'A-1042' }, toolUseId: 'call-1' }], { usage: usage(180, 20) }),
    toolUseTurn(
      [
        {
          name: 'ask_shipping',
          input: { task: 'Order A-1042 left the Oslo warehouse on 2026-11-20 by CargoLine to 12 Quay Street. When does it arrive?' },
          toolUseId: 'call-2',
        },
      ],
      { usage: usage(140, 35) },
    ),
    textTurn('Your lamp is on its way to 12 Quay Street and arrives on Friday, before the weekend.', { usage: usage(160, 25) }),
  ]);
  const summarizer = new ScriptedModel([
    textTurn(
      'Desk lamp A-1042, gift note for Sam, redirected to 12 Quay Street; shipped 2026-11-20 from Oslo by CargoLine. The user asks if it arrives before the weekend.',
      { usage: usage(120, 22) },
    ),
  ]);
  const shippingModel = new ScriptedModel([
    toolUseTurn([{ name: 'track', input: { carrier: 'CargoLine', from: 'Oslo' }, toolUseId: 'track-1' }], { usage: usage(60, 12) }),
    textTurn('CargoLine delivers it on Friday.', { usage: usage(80, 8) }),
  ]);

  const registry = new MiddlewareRegistry();
  // Over 300 estimated tokens, everything but the last two messages becomes one summary, written by its own model.
  registry.use(compaction({ maxTokens: 300, keepRecent: 2, summarize: { model: summarizer } }));
  // A tool that hands a question to a child agent, which runs on a child registry of the run's.
  registry.use(
    subagent({
      name: 'ask_shipping',
      description: 'Asks the shipping desk when a parcel arrives.',
      systemPrompt: 'You are the shipping desk. Answer in one sentence.',
      model: shippingModel,
      tools: [new ScriptedTool({ name: 'track', description: 'Tracks a parcel.', outcomes: [{ value: { eta: 'Friday' } }] })],
    }),
  );
  const entries: TimelineEntry[] = [];
  registry.instrument(
    timeline((entry) => {
      entries.push(entry);
      if (entry.kind !== 'event' || !STREAM_EVENTS.test(entry.detail ?? '')) options.write(renderEntry(entry, options.color));
    }),
  );

  const lookup = new ScriptedTool({
    name: 'lookup_order',
    description: 'Looks up an order by id.',
    outcomes: [
      {
        value: {
          orderId: 'A-1042',
          item: 'desk lamp',
          status: 'shipped',
          shippedOn: '2026-11-20',
          from: 'Oslo warehouse',
          carrier: 'CargoLine',
          to: '12 Quay Street',
        },
      },
    ],
  });
  const agent = new Agent({
    name: 'shop',
    model: agentModel,
    tools: [lookup],
    registry,
    systemPrompt: 'You are a helpful shop assistant.',
    messages: EARLIER,
  });
  const result = await agent.invoke('Will my lamp arrive before the weekend?');

  const answer = (result.message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
  const tokens = (counted: Usage): string => `in=${counted.inputTokens} out=${counted.outputTokens}`;
  options.write('');
  options.write(`${options.color ? '\u001b[1m' : ''}Answer (${result.stopReason}):${options.color ? '\u001b[0m' : ''} ${answer}`);
  options.write(`History: ${EARLIER.length + 1} messages before the run, ${agent.messages.length} after (the first is the summary)`);
  options.write(`Usage of the agent's own model calls: ${tokens(result.usage)}`);
  for (const [caller, counted] of Object.entries(result.middlewareUsage ?? {}))
    options.write(`Usage of calls made by ${caller}: ${tokens(counted)}`);
  return {
    entries,
    result,
    messages: agent.messages,
    requests: {
      agent: agentModel.calls.length,
      summarizer: summarizer.calls.map((call) => [...call.request.messages]),
      shipping: shippingModel.calls.length,
    },
  };
}
