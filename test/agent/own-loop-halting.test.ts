import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { ExecuteToolStage, History, MemorySessionStore, callTools, type Message, type ToolUseBlock } from '../../src/agent/index';
import { ScriptedTool } from '../../src/testing/index';
import { halt, resume } from '../../examples/own-loop-halting';
import { drain } from '../assertions';
import { user } from './fixtures';

const toolUses: ToolUseBlock[] = [
  { type: 'toolUse', toolUseId: 'ls-1', name: 'ls', input: {} },
  { type: 'toolUse', toolUseId: 'rm-1', name: 'rm', input: { path: 'a.txt' } },
];
const message: Message = { role: 'assistant', content: toolUses };
const approve = { id: 'executeTool:rm-1:approve', name: 'approve', reason: 'Deletes a.txt' };
const listed = { type: 'toolResult', toolUseId: 'ls-1', name: 'ls', status: 'success', content: [{ type: 'text', text: 'a.txt' }] };

describe('examples/own-loop-halting.ts', () => {
  describe('a turn whose second tool call asks for approval', () => {
    it('halts on the question after the other call ran, and a resume from the stored snapshot finishes the turn', async () => {
      const registry = new MiddlewareRegistry();
      const seen: string[] = [];
      registry.add(ExecuteToolStage.Input, (context) => (seen.push(context.toolUse.toolUseId), context));
      const ls = new ScriptedTool({ name: 'ls', outcomes: [{ value: 'a.txt' }] });
      const rm = new ScriptedTool({
        name: 'rm',
        respond: (_input, context) => (context.interrupt({ name: 'approve', reason: 'Deletes a.txt' }).response === true ? 'gone' : 'kept'),
      });
      const history = new History([user('Tidy up.'), message]);
      const halted = await drain(callTools(registry, { toolUses, tools: [ls, rm], invocationState: {} }));
      const store = new MemorySessionStore();
      store.save('tidy', halt(history, message, halted.value));
      const snapshot = store.load('tidy');
      if (snapshot === undefined) throw new Error('the store lost the snapshot');
      const resumed = await drain(resume(registry, [ls, rm], snapshot, { [approve.id]: true }));
      expect({
        halted: { events: halted.events.map((event) => event.type), calls: halted.value },
        resumed: { events: resumed.events.map((event) => event.type), messages: resumed.value.messages },
        seen,
        calls: [ls.calls.length, rm.calls.length],
      }).toEqual({
        halted: { events: ['toolResult', 'interrupt'], calls: { results: [listed], interrupts: [approve] } },
        resumed: {
          events: ['toolResult'],
          messages: [
            user('Tidy up.'),
            message,
            {
              role: 'user',
              content: [
                listed,
                { type: 'toolResult', toolUseId: 'rm-1', name: 'rm', status: 'success', content: [{ type: 'text', text: 'gone' }] },
              ],
            },
          ],
        },
        seen: ['ls-1', 'rm-1', 'rm-1'],
        calls: [1, 2],
      });
    });
  });
});
