/**
 * The examples the agent kit guide (docs/agent-kit.md) shows, run: each does
 * what the guide says it does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage, InvokeModelStage, type Message } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { approveRuns, geolocate, runToTheEnd } from '../../examples/agent-interrupts';
import { auditTools } from '../../examples/agent-view';
import { answerPending, openSession, textSessions } from '../../examples/durable-runs';
import { AccountFrozen, answerErrors } from '../../examples/errors-as-answers';
import { turnControls } from '../../examples/turn-control';
import { researchAgent } from '../../examples/agent-middleware';
import { callLimit, CallLimitExceeded } from '../../examples/call-limit';

const scratch = mkdtempSync(join(tmpdir(), 'agent-examples-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const textOf = (message: Message | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : block.type)).join('');

describe('examples/turn-control.ts', () => {
  it('reminds of the todos after tools, sends an unverified answer back, and closes the run with a note', async () => {
    const registry = new MiddlewareRegistry();
    turnControls(registry, () => ['pack the order']);
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'lookup', input: {} }]),
      textTurn('It ships Tuesday.'),
      toolUseTurn([{ name: 'verify', input: {} }]),
      textTurn('Verified: Tuesday.'),
    ]);
    const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup' }), new ScriptedTool({ name: 'verify' })] });
    const result = await agent.invoke('When does it ship?');
    expect([result.stopReason, agent.messages.map(textOf)]).toEqual([
      'endTurn',
      [
        'When does it ship?',
        'toolUse',
        'toolResult',
        'Open todos: pack the order.',
        'It ships Tuesday.',
        'Call the verifier before you answer.',
        'toolUse',
        'toolResult',
        'Open todos: pack the order.',
        'Verified: Tuesday.',
        'Done in 4 turns.',
      ],
    ]);
  });

  it('stops after ten turns, saying who stopped the run', async () => {
    const registry = new MiddlewareRegistry();
    turnControls(registry, () => []);
    const model = new ScriptedModel(Array.from({ length: 10 }, () => toolUseTurn([{ name: 'verify', input: {} }])));
    const result = await new Agent({ model, registry, tools: [new ScriptedTool({ name: 'verify' })] }).invoke('Loop.');
    expect([result.stopReason, result.stoppedBy]).toEqual(['stopped', { handler: 'tenTurns', reason: 'ten turns' }]);
  });
});

describe('examples/errors-as-answers.ts', () => {
  it('answers for a refund the guard refuses and lets the model try again', async () => {
    const registry = new MiddlewareRegistry();
    answerErrors(registry);
    const model = new ScriptedModel([toolUseTurn([{ name: 'refund', input: { amount: 250 } }]), textTurn('A manager must approve that.')]);
    const refund = new ScriptedTool({ name: 'refund' });
    const result = await new Agent({ model, registry, tools: [refund] }).invoke('Refund 250 EUR.');
    expect([result.stopReason, refund.calls.length, model.calls[1]?.request.messages.at(-1)?.content]).toEqual([
      'endTurn',
      0,
      [
        {
          type: 'toolResult',
          toolUseId: 'tool-1',
          name: 'refund',
          status: 'error',
          content: [{ type: 'text', text: 'Tool "refund" failed: Refunds over 100 EUR need a manager.' }],
        },
      ],
    ]);
  });

  it('lets a critical error fail the run', async () => {
    const registry = new MiddlewareRegistry();
    answerErrors(registry);
    const frozen = new AccountFrozen('The account is frozen.');
    registry.add(ExecuteToolStage.Wrap, async function* accountCheck() {
      throw frozen;
    });
    const agent = new Agent({
      model: new ScriptedModel([toolUseTurn([{ name: 'refund', input: { amount: 5 } }])]),
      registry,
      tools: [new ScriptedTool({ name: 'refund' })],
    });
    await expect(agent.invoke('Refund 5 EUR.')).rejects.toBe(frozen);
  });
});

describe('examples/agent-interrupts.ts', () => {
  it('answers the question before the run and runs the external call in the "browser", until the run ends', async () => {
    const registry = new MiddlewareRegistry();
    approveRuns(registry);
    const asked: unknown[] = [];
    const model = new ScriptedModel([toolUseTurn([{ name: 'geolocate', input: {} }]), textTurn('You are in Oslo.')]);
    const agent = new Agent({ name: 'guide', model, registry, tools: [geolocate] });
    const stopReason = await runToTheEnd(
      agent,
      'Where am I?',
      async (reason) => (asked.push(reason), 'yes'),
      async (toolUse) => (asked.push(toolUse), { city: 'Oslo' }),
    );
    expect([stopReason, asked, textOf(agent.messages.at(-1))]).toEqual([
      'endTurn',
      ['guide wants to start.', { type: 'toolUse', toolUseId: 'tool-1', name: 'geolocate', input: {} }],
      'You are in Oslo.',
    ]);
  });
});

describe('examples/durable-runs.ts', () => {
  const options = () => {
    const registry = new MiddlewareRegistry();
    approveRuns(registry);
    return { model: new ScriptedModel([textTurn('Started.')]), registry };
  };

  it('halts in one agent and is answered by another opened on the same session', async () => {
    const first = await openSession(options(), join(scratch, 'sessions'), 'chat-1');
    const halted = await first.invoke('Start.');
    const result = await answerPending(options(), join(scratch, 'sessions'), 'chat-1', 'yes');
    expect([halted.stopReason, result.stopReason, textOf(result.message)]).toEqual(['interrupt', 'endTurn', 'Started.']);
  });

  it('keeps sessions as JSON text in any store of strings', async () => {
    const texts = new Map<string, string>();
    const store = textSessions({ get: async (key) => texts.get(key) ?? null, set: async (key, text) => texts.set(key, text) });
    const agent = new Agent({ model: new ScriptedModel([textTurn('Hi.')]), session: { store, id: 'a' } });
    await agent.invoke('Hello.');
    const restored = await Agent.fromSession({ model: new ScriptedModel([]), session: { store, id: 'a' } });
    expect([[...texts.keys()], restored.messages]).toEqual([['session:a'], agent.messages]);
  });
});

describe('examples/agent-view.ts', () => {
  it("logs each tool call with the agent's name, session and tool count", async () => {
    const registry = new MiddlewareRegistry();
    const lines: string[] = [];
    auditTools(registry, (line) => lines.push(line));
    const agent = new Agent({
      name: 'shop',
      model: new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {} }]), textTurn('ok')]),
      registry,
      tools: [new ScriptedTool({ name: 'lookup' })],
    });
    await agent.invoke('go');
    expect(lines).toEqual(['shop (session none, 1 tools) calls lookup']);
  });
});

describe('examples/agent-middleware.ts', () => {
  const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

  it('shows the todo list, delegates research with keys redacted, and ends the run once it has published', async () => {
    const todos = [
      { content: 'Find the launch date', status: 'inProgress' },
      { content: 'Publish a note', status: 'pending' },
    ];
    const model = new ScriptedModel([
      toolUseTurn([
        { name: 'write_todos', input: { todos }, toolUseId: 't1' },
        { name: 'research', input: { task: 'When did the product launch?' }, toolUseId: 'r1' },
      ]),
      toolUseTurn([{ name: 'publish', input: { note: 'It launched on 3 May 2026.' }, toolUseId: 'p1' }]),
    ]);
    const cheap = new ScriptedModel([
      toolUseTurn([{ name: 'search', input: { query: 'launch date' } }], { usage }),
      textTurn('It launched on 3 May 2026 (press release).', { usage }),
    ]);
    const search = new ScriptedTool({ name: 'search', respond: () => 'Press release: launched 3 May 2026. Fetched with sk-abc123.' });
    const publish = new ScriptedTool({ name: 'publish' });
    const agent = researchAgent(model, cheap, search, publish);
    const result = await agent.invoke('Write a note on the launch date.');
    expect([
      result.stopReason,
      result.stoppedBy,
      publish.calls.length,
      model.calls[1]?.request.systemPrompt,
      textOf(cheap.calls[1]?.request.messages.at(-1)),
      agent.messages[2]?.content[1],
      result.middlewareUsage,
    ]).toEqual([
      'stopped',
      { handler: 'terminate', reason: 'publish' },
      1,
      'You write short research notes.\nCurrent todo list:\n- [~] Find the launch date\n- [ ] Publish a note',
      'toolResult',
      {
        type: 'toolResult',
        toolUseId: 'r1',
        name: 'research',
        status: 'success',
        content: [{ type: 'text', text: 'It launched on 3 May 2026 (press release).' }],
      },
      { research: { inputTokens: 20, outputTokens: 10, totalTokens: 30 } },
    ]);
    expect(cheap.calls[1]?.request.messages.at(-1)?.content).toEqual([
      {
        type: 'toolResult',
        toolUseId: 'tool-1',
        name: 'search',
        status: 'success',
        content: [{ type: 'text', text: 'Press release: launched 3 May 2026. Fetched with [key].' }],
      },
    ]);
  });

  it('asks for the final answer again when it is not JSON, and keeps only the answer that is', async () => {
    const model = new ScriptedModel([textTurn('It launched in May.'), textTurn('{"launched":"2026-05-03"}')]);
    const agent = researchAgent(model, new ScriptedModel([]), new ScriptedTool({ name: 'search' }), new ScriptedTool({ name: 'publish' }));
    const result = await agent.invoke('When did it launch? Answer in JSON.');
    const feedback = textOf(model.calls[1]?.request.messages.at(-1));
    expect([
      result.stopReason,
      agent.messages.map(textOf),
      model.calls[1]?.request.messages.length,
      feedback.startsWith('Your answer was rejected: '),
      feedback.endsWith('. Answer again.'),
    ]).toEqual(['endTurn', ['When did it launch? Answer in JSON.', '{"launched":"2026-05-03"}'], 3, true, true]);
  });
});

describe('examples/call-limit.ts', () => {
  const looping = (): ScriptedModel => new ScriptedModel(Array.from({ length: 5 }, () => toolUseTurn([{ name: 'lookup', input: {} }])));

  it('ends a run at its limit with a note, and counts each run apart', async () => {
    const registry = new MiddlewareRegistry();
    registry.use(callLimit({ runLimit: 2 }));
    const model = looping();
    const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup' })] });
    const first = await agent.invoke('Look it up.');
    const second = await agent.invoke('Again.');
    expect([first.stopReason, textOf(first.message), second.stopReason, model.calls.length]).toEqual([
      'endTurn',
      'Model call limit reached: 2 per run.',
      'endTurn',
      4,
    ]);
  });

  it("fails the run with its own error when exitBehavior is 'error'", async () => {
    const registry = new MiddlewareRegistry();
    registry.use(callLimit({ runLimit: 1, exitBehavior: 'error' }));
    const agent = new Agent({ model: looping(), registry, tools: [new ScriptedTool({ name: 'lookup' })] });
    const error = await agent.invoke('Look it up.').catch((caught: unknown) => caught);
    expect([error instanceof CallLimitExceeded, (error as Error).message]).toEqual([true, 'Model call limit reached: 1 per run.']);
  });

  it('shows its hook in explain() under its id, outside the other model handlers', () => {
    const registry = new MiddlewareRegistry();
    registry.add(InvokeModelStage.Wrap, async function* audit(_context, next) {
      yield* next();
    });
    registry.use(callLimit({ runLimit: 2 }));
    expect(registry.explain(InvokeModelStage)).toEqual(
      [
        'stage "invokeModel"',
        '└─ wrap    1. callLimit.model.wrap  [order -100; bundle callLimit]',
        '   └─ wrap    2. audit',
        '      └─ terminal',
      ].join('\n'),
    );
  });
});
