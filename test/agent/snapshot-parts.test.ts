/**
 * MW-136: every part of a snapshot is checked when it is restored, and a part
 * that does not fit the format is refused, named by its path, before the
 * agent exists (not later, at the provider).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Agent, type AgentSnapshot } from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';
import {
  blockAt,
  haltedAgentParts,
  changedCopy,
  haltedTurnSnapshot,
  refused,
  restore,
  resultAt,
  TURN,
  type Data,
  type MessageData,
  type Part,
} from './snapshot-data';

describe('Agent', () => {
  describe('restored from a snapshot of a halted turn', () => {
    let saved: Data;
    beforeAll(async () => {
      saved = await haltedTurnSnapshot();
    });

    /** The saved snapshot changed by `change`. */
    const changed = (change: (snapshot: Data) => void): Data => changedCopy(saved, change);

    it('is the halted turn the checks below change: one recorded result, for the first tool use', () => {
      expect(saved.halted.turn.results).toEqual([
        { type: 'toolResult', toolUseId: 'u1', name: 'lookup', status: 'success', content: [{ type: 'text', text: 'found' }] },
      ]);
    });

    it('resumes as the agent it was taken from would have', async () => {
      const { registry, tools } = haltedAgentParts();
      const agent = new Agent({
        model: new ScriptedModel([textTurn('paid')]),
        registry,
        tools,
        snapshot: saved as unknown as AgentSnapshot,
      });
      const result = await agent.resume({ 'executeTool:u2:approve': 'yes' });
      expect([result.stopReason, agent.messages[2]?.content.length, tools.map((tool) => tool.calls.length)]).toEqual([
        'endTurn',
        2,
        [0, 1],
      ]);
    });

    it.each<[string, (snapshot: Data) => void, string]>([
      ['a recorded result without status', (snapshot) => delete resultAt(snapshot).status, `${TURN}.results[0].status`],
      ['a recorded result without content', (snapshot) => delete resultAt(snapshot).content, `${TURN}.results[0].content`],
      ['a recorded result without name', (snapshot) => delete resultAt(snapshot).name, `${TURN}.results[0].name`],
      [
        'a recorded result whose content holds a block of another type',
        (snapshot) => (resultAt(snapshot).content = [{ type: 'image', url: 'x' }]),
        `${TURN}.results[0].content[0].type`,
      ],
      ['a recorded result that is no tool result', (snapshot) => (resultAt(snapshot).type = 'text'), `${TURN}.results[0].type`],
      [
        'a recorded result answering no tool use of the turn',
        (snapshot) => (resultAt(snapshot).toolUseId = 'u9'),
        `${TURN}.results[0].toolUseId`,
      ],
      [
        'two recorded results for one tool use',
        (snapshot) => snapshot.halted.turn.results.push(resultAt(snapshot)),
        `${TURN}.results[1].toolUseId`,
      ],
      [
        'a turn whose message has no tool use',
        (snapshot) => (snapshot.halted.turn.message = { role: 'assistant', content: [{ type: 'text', text: 'hi' }] }),
        `${TURN}.message`,
      ],
      ['a terminating id that names no recorded result', (snapshot) => (snapshot.halted.turn.terminating = ['u2']), `${TURN}.terminating`],
      [
        'input to replay beside a halted turn',
        (snapshot) => (snapshot.halted.input = [{ role: 'user', content: [] }]),
        'options.snapshot.halted.input',
      ],
      [
        'an interrupt without a name',
        (snapshot) => delete (snapshot.halted.interrupts[0] as Part).name,
        'options.snapshot.halted.interrupts[0]',
      ],
      [
        'a tool use of the history without input',
        (snapshot) => delete blockAt(snapshot, 1, 0).input,
        'options.snapshot.messages[1].content[0].input',
      ],
      [
        'a text block of the history without text',
        (snapshot) => ((snapshot.messages[0] as MessageData).content[0] = { type: 'text' }),
        'options.snapshot.messages[0].content[0].text',
      ],
      [
        'a block of the history that is not an object',
        (snapshot) => ((snapshot.messages[0] as MessageData).content[0] = 'pay order 7'),
        'options.snapshot.messages[0].content[0]',
      ],
      [
        'a reasoning block of the turn message with a signature that is not a string',
        (snapshot) => snapshot.halted.turn.message.content.unshift({ type: 'reasoning', text: 'why', signature: 5 }),
        `${TURN}.message.content[0].signature`,
      ],
      [
        'a cache point of the history without a cache type',
        (snapshot) => (snapshot.messages[0] as MessageData).content.push({ type: 'cachePoint' }),
        'options.snapshot.messages[0].content[1].cacheType',
      ],
    ])('refuses %s, naming the part', (_name, change, part) => {
      expect(restore(changed(change))).toEqual(refused(part));
    });

    it.each<[string, (snapshot: Data) => void]>([
      [
        'a block of a type the kit does not read',
        (snapshot) => (snapshot.messages[0] as MessageData).content.push({ type: 'image', url: 'x' }),
      ],
      [
        'a tool result of the history without name (saved before results carried names)',
        (snapshot) =>
          snapshot.messages.push(
            { role: 'user', content: [{ type: 'toolResult', toolUseId: 'u0', status: 'error', content: [] }] },
            { role: 'assistant', content: [] },
          ),
      ],
    ])('accepts %s', (_name, change) => {
      expect(restore(changed(change))).toEqual('restored');
    });
  });
});
