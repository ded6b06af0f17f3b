import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  approvalPolicy,
  defineTool,
  ExecuteToolStage,
  TOOL_APPROVAL,
  type AgentSnapshot,
  type Message,
  type NeedsApproval,
  type Tool,
} from '../../src/agent/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';

/** A mail tool that records what it sent. */
function mailer(sent: unknown[], needsApproval?: NeedsApproval): Tool {
  return {
    spec: { name: 'send_email', description: 'Sends an e-mail.', inputSchema: { type: 'object' } },
    run: (input) => {
      sent.push(input);
      return 'sent';
    },
    ...(needsApproval === undefined ? {} : { needsApproval }),
  };
}

const scriptedModel = () =>
  new ScriptedModel([toolUseTurn([{ name: 'send_email', input: { to: 'ada@example.com' }, toolUseId: 'm1' }]), textTurn('Done.')]);

/** The tool-result message a resumed run appended after the assistant's tool use. */
const resultMessage = (agent: Agent): Message | undefined => agent.messages[2];

const APPROVAL_ID = 'executeTool:m1:toolApproval';

describe('Tool.needsApproval', () => {
  describe('true', () => {
    it('halts before the tool runs, asking toolApproval with the call and the decisions', async () => {
      const sent: unknown[] = [];
      const agent = new Agent({ model: scriptedModel(), tools: [mailer(sent, true)] });
      const halted = await agent.invoke('Mail Ada');
      expect([halted.stopReason, halted.interrupts, sent, TOOL_APPROVAL]).toEqual([
        'interrupt',
        [
          {
            id: APPROVAL_ID,
            name: 'toolApproval',
            reason: {
              type: 'toolApproval',
              toolUseId: 'm1',
              name: 'send_email',
              input: { to: 'ada@example.com' },
              decisions: ['approve', 'edit', 'reject'],
            },
          },
        ],
        [],
        'toolApproval',
      ]);
    });

    it('runs the tool with the model input when the resume approves', async () => {
      const sent: unknown[] = [];
      const agent = new Agent({ model: scriptedModel(), tools: [mailer(sent, true)] });
      await agent.invoke('Mail Ada');
      const resumed = await agent.resume({ [APPROVAL_ID]: { decision: 'approve' } });
      expect([resumed.stopReason, sent]).toEqual(['endTurn', [{ to: 'ada@example.com' }]]);
    });

    it('runs the tool with the human input when the resume edits', async () => {
      const sent: unknown[] = [];
      const agent = new Agent({ model: scriptedModel(), tools: [mailer(sent, true)] });
      await agent.invoke('Mail Ada');
      await agent.resume({ [APPROVAL_ID]: { decision: 'edit', input: { to: 'grace@example.com' } } });
      expect(sent).toEqual([{ to: 'grace@example.com' }]);
    });

    it('answers the model with the rejection message and never runs the tool when the resume rejects', async () => {
      const sent: unknown[] = [];
      const agent = new Agent({ model: scriptedModel(), tools: [mailer(sent, true)] });
      await agent.invoke('Mail Ada');
      await agent.resume({ [APPROVAL_ID]: { decision: 'reject', message: 'Ada is on leave; do not mail her.' } });
      expect([sent, resultMessage(agent)]).toEqual([
        [],
        {
          role: 'user',
          content: [
            {
              type: 'toolResult',
              toolUseId: 'm1',
              name: 'send_email',
              status: 'error',
              content: [{ type: 'text', text: 'Ada is on leave; do not mail her.' }],
            },
          ],
        },
      ]);
    });

    it('answers with a default text when a rejection gives no message', async () => {
      const agent = new Agent({ model: scriptedModel(), tools: [mailer([], true)] });
      await agent.invoke('Mail Ada');
      await agent.resume({ [APPROVAL_ID]: { decision: 'reject' } });
      expect(resultMessage(agent)?.content).toEqual([
        {
          type: 'toolResult',
          toolUseId: 'm1',
          name: 'send_email',
          status: 'error',
          content: [{ type: 'text', text: 'The call of tool "send_email" was rejected.' }],
        },
      ]);
    });
  });

  describe('a predicate', () => {
    it('asks only for the calls it returns true for, and gives it the input and the call', async () => {
      const seen: unknown[] = [];
      const sent: unknown[] = [];
      const external = (input: unknown, context: { toolUse: { toolUseId: string } }) => {
        seen.push([input, context.toolUse.toolUseId]);
        return !(input as { to: string }).to.endsWith('@example.com');
      };
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'send_email', input: { to: 'ada@example.com' }, toolUseId: 'm1' },
          { name: 'send_email', input: { to: 'eve@elsewhere.org' }, toolUseId: 'm2' },
        ]),
        textTurn('Done.'),
      ]);
      const agent = new Agent({ model, tools: [mailer(sent, external)] });
      const halted = await agent.invoke('Mail both');
      expect([halted.interrupts.map((interrupt) => interrupt.id), sent, seen]).toEqual([
        ['executeTool:m2:toolApproval'],
        [{ to: 'ada@example.com' }],
        [
          [{ to: 'ada@example.com' }, 'm1'],
          [{ to: 'eve@elsewhere.org' }, 'm2'],
        ],
      ]);
    });

    it('fails the run with ERR_INVALID_OPTIONS when it returns no boolean', async () => {
      const agent = new Agent({ model: scriptedModel(), tools: [mailer([], (() => 'yes') as unknown as NeedsApproval)] });
      const error = await agent.invoke('Mail Ada').catch((thrown: unknown) => thrown);
      expect([MiddlewareError.isInstance(error) && error.code, MiddlewareError.isInstance(error) && error.stage]).toEqual([
        'ERR_INVALID_OPTIONS',
        'executeTool',
      ]);
    });
  });

  describe('defineTool', () => {
    it('gives the predicate the validated input', async () => {
      const sent: unknown[] = [];
      const tool = defineTool({
        name: 'send_email',
        description: 'Sends an e-mail.',
        input: z.object({ to: z.string(), urgent: z.boolean().default(false) }),
        needsApproval: (input) => input.urgent,
        run: (input) => {
          sent.push(input);
          return 'sent';
        },
      });
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'send_email', input: { to: 'ada@example.com' }, toolUseId: 'm1' },
          { name: 'send_email', input: { to: 'bob@example.com', urgent: true }, toolUseId: 'm2' },
        ]),
        textTurn('Done.'),
      ]);
      const agent = new Agent({ model, tools: [tool] });
      const halted = await agent.invoke('Mail both');
      expect([halted.interrupts.map((interrupt) => interrupt.id), sent]).toEqual([
        ['executeTool:m2:toolApproval'],
        [{ to: 'ada@example.com', urgent: false }],
      ]);
    });
  });

  describe('new Agent()', () => {
    it('refuses a needsApproval that is neither a boolean nor a function', () => {
      const tool = { ...mailer([]), needsApproval: 'always' } as unknown as Tool;
      expect(() => new Agent({ model: scriptedModel(), tools: [tool] })).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          message: expect.stringContaining('options.tools[0].needsApproval') as unknown,
        }),
      );
    });
  });

  describe('resume', () => {
    it('refuses an answer that is no decision before the run starts, leaving the question pending', async () => {
      const sent: unknown[] = [];
      const agent = new Agent({ model: scriptedModel(), tools: [mailer(sent, true)] });
      await agent.invoke('Mail Ada');
      const error = await agent.resume({ [APPROVAL_ID]: 'yes' }).catch((thrown: unknown) => thrown);
      expect([MiddlewareError.isInstance(error) && error.code, agent.pendingInterrupts.map((interrupt) => interrupt.id), sent]).toEqual([
        'ERR_INVALID_OPTIONS',
        [APPROVAL_ID],
        [],
      ]);
    });

    it('goes on from a snapshot written to JSON and read back in a fresh agent', async () => {
      const sent: unknown[] = [];
      const first = new Agent({ model: scriptedModel(), tools: [mailer(sent, true)] });
      await first.invoke('Mail Ada');
      const saved = JSON.parse(JSON.stringify(first.snapshot())) as AgentSnapshot;
      const model = new ScriptedModel([textTurn('Done.')]);
      const second = new Agent({ model, tools: [mailer(sent, true)], snapshot: saved });
      const resumed = await second.resume({ [APPROVAL_ID]: { decision: 'edit', input: { to: 'grace@example.com' } } });
      expect([second.pendingInterrupts, resumed.stopReason, sent, resultMessage(second)?.content]).toEqual([
        [],
        'endTurn',
        [{ to: 'grace@example.com' }],
        [
          {
            type: 'toolResult',
            toolUseId: 'm1',
            name: 'send_email',
            status: 'success',
            content: [{ type: 'text', text: 'sent' }],
          },
        ],
      ]);
    });
  });
});

describe('approvalPolicy', () => {
  describe('a tool it names', () => {
    it('asks the same question as needsApproval, with the decisions and description of its rule', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        ExecuteToolStage.Wrap,
        approvalPolicy({ send_email: { decisions: ['approve', 'reject'], description: 'Mail leaves the company.' } }),
      );
      const agent = new Agent({ model: scriptedModel(), tools: [mailer([])], registry });
      const halted = await agent.invoke('Mail Ada');
      expect(halted.interrupts).toEqual([
        {
          id: APPROVAL_ID,
          name: 'toolApproval',
          reason: {
            type: 'toolApproval',
            toolUseId: 'm1',
            name: 'send_email',
            input: { to: 'ada@example.com' },
            decisions: ['approve', 'reject'],
            description: 'Mail leaves the company.',
          },
        },
      ]);
    });

    it('passes the edited input to the layers inside it', async () => {
      const sent: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, approvalPolicy({ send_email: true }));
      const agent = new Agent({ model: scriptedModel(), tools: [mailer(sent)], registry });
      await agent.invoke('Mail Ada');
      await agent.resume({ [APPROVAL_ID]: { decision: 'edit', input: { to: 'grace@example.com' } } });
      expect(sent).toEqual([{ to: 'grace@example.com' }]);
    });

    it('refuses at the resume a decision its rule does not allow', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, approvalPolicy({ send_email: { decisions: ['approve', 'reject'] } }));
      const agent = new Agent({ model: scriptedModel(), tools: [mailer([])], registry });
      await agent.invoke('Mail Ada');
      const error = await agent.resume({ [APPROVAL_ID]: { decision: 'edit', input: {} } }).catch((thrown: unknown) => thrown);
      expect([MiddlewareError.isInstance(error) && error.code, agent.pendingInterrupts.length]).toEqual(['ERR_INVALID_OPTIONS', 1]);
    });

    it('asks once when the tool needs approval too', async () => {
      const sent: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, approvalPolicy({ send_email: true }));
      const agent = new Agent({ model: scriptedModel(), tools: [mailer(sent, true)], registry });
      const halted = await agent.invoke('Mail Ada');
      const resumed = await agent.resume({ [APPROVAL_ID]: { decision: 'approve' } });
      expect([halted.interrupts.length, resumed.stopReason, sent]).toEqual([1, 'endTurn', [{ to: 'ada@example.com' }]]);
    });
  });

  describe('a tool it does not name', () => {
    it('runs the tool without asking', async () => {
      const sent: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, approvalPolicy({ delete_file: true }));
      const agent = new Agent({ model: scriptedModel(), tools: [mailer(sent)], registry });
      const result = await agent.invoke('Mail Ada');
      expect([result.stopReason, sent]).toEqual(['endTurn', [{ to: 'ada@example.com' }]]);
    });
  });

  describe('the factory', () => {
    it.each<[string, unknown]>([
      ['an array', []],
      ['a string rule', { send_email: 'yes' }],
      ['an unknown decision', { send_email: { decisions: ['approve', 'ignore'] } }],
      ['no decisions', { send_email: { decisions: [] } }],
      ['a description that is no string', { send_email: { description: 1 } }],
    ])('refuses %s with ERR_INVALID_OPTIONS', (_name, policy) => {
      expect(() => approvalPolicy(policy as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'approvalPolicy', phase: 'register' }),
      );
    });
  });
});
