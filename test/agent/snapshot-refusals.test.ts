/**
 * MW-136: the words of each refusal of a restored snapshot: the part at fault
 * by its path, what it must be and what it is; and the parts, read as the
 * format allows, that are restored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  blockAt,
  haltedPart,
  changedCopy,
  haltedTurnSnapshot,
  refusal,
  resultAt,
  TURN,
  whole,
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

    it.each<[string, (snapshot: Data) => void, string]>([
      [
        'a block that is not an object',
        (snapshot) => ((snapshot.messages[0] as MessageData).content[0] = null),
        'options.snapshot.messages[0].content[0] must be a content block { type, ... }, got null',
      ],
      [
        'a block whose type is not a string',
        (snapshot) => ((snapshot.messages[0] as MessageData).content[0] = { type: 7, text: 'pay order 7' }),
        'options.snapshot.messages[0].content[0].type must be a string, got number 7',
      ],
      [
        'a text block whose text is not a string',
        (snapshot) => ((snapshot.messages[0] as MessageData).content[0] = { type: 'text', text: 7 }),
        'options.snapshot.messages[0].content[0].text of a text block must be a string, got number 7',
      ],
      [
        'a reasoning block with a signature that is not a string',
        (snapshot) => (snapshot.messages[0] as MessageData).content.push({ type: 'reasoning', text: 'why', signature: 5 }),
        'options.snapshot.messages[0].content[1].signature of a reasoning block must be a string when present, got number 5',
      ],
      [
        'a tool use without input',
        (snapshot) => delete blockAt(snapshot, 1, 0).input,
        'options.snapshot.messages[1].content[0].input of a toolUse block must be present (any JSON value), got undefined',
      ],
      [
        'a tool use whose name is not a string',
        (snapshot) => (blockAt(snapshot, 1, 0).name = ['lookup']),
        'options.snapshot.messages[1].content[0].name of a toolUse block must be a string, got an array of length 1',
      ],
      [
        'a tool use whose id is not a string',
        (snapshot) => (blockAt(snapshot, 1, 0).toolUseId = 3),
        'options.snapshot.messages[1].content[0].toolUseId of a toolUse block must be a string, got number 3',
      ],
      [
        'a reasoning block whose text is not a string',
        (snapshot) => (snapshot.messages[0] as MessageData).content.push({ type: 'reasoning', text: 7 }),
        'options.snapshot.messages[0].content[1].text of a reasoning block must be a string, got number 7',
      ],
      [
        'a recorded result whose tool-use id is not a string',
        (snapshot) => (resultAt(snapshot).toolUseId = 3),
        `${TURN}.results[0].toolUseId of a toolResult block must be a string, got number 3`,
      ],
      [
        'a tool result of the history with a status of its own',
        (snapshot) => (resultAt(snapshot).status = 'done'),
        `${TURN}.results[0].status of a toolResult block must be 'success' or 'error', got the string "done"`,
      ],
      [
        'a tool result of the history whose name is not a string',
        (snapshot) =>
          (snapshot.messages[0] as MessageData).content.push({
            type: 'toolResult',
            toolUseId: 'u0',
            name: 1,
            status: 'error',
            content: [],
          }),
        'options.snapshot.messages[0].content[1].name of a toolResult block must be a string when present, got number 1',
      ],
      [
        'a recorded result without name',
        (snapshot) => delete resultAt(snapshot).name,
        `${TURN}.results[0].name of a toolResult block must be a string, got undefined`,
      ],
      [
        'a recorded result that is no tool result',
        (snapshot) => (resultAt(snapshot).type = 'text'),
        `${TURN}.results[0].type must be 'toolResult', got the string "text"`,
      ],
      [
        'a recorded result whose content is not an array',
        (snapshot) => (resultAt(snapshot).content = 'found'),
        `${TURN}.results[0].content of a toolResult block must be an array of text and json blocks, got the string "found"`,
      ],
      [
        'a recorded result whose content holds a block of another type',
        (snapshot) => (resultAt(snapshot).content = [{ type: 'image', url: 'x' }]),
        `${TURN}.results[0].content[0].type of a tool result's content must be 'text' or 'json', got the string "image"`,
      ],
      [
        'a recorded result whose content holds a text block without text',
        (snapshot) => (resultAt(snapshot).content = [{ type: 'text', json: 'found' }]),
        `${TURN}.results[0].content[0].text of a text block must be a string, got undefined`,
      ],
      [
        'a recorded result whose content holds a json block without json',
        (snapshot) => (resultAt(snapshot).content = [{ type: 'json', text: 'found' }]),
        `${TURN}.results[0].content[0].json of a json block must be present (any JSON value), got undefined`,
      ],
      [
        'a cache point without a cache type',
        (snapshot) => (snapshot.messages[0] as MessageData).content.push({ type: 'cachePoint', cacheType: null }),
        'options.snapshot.messages[0].content[1].cacheType of a cachePoint block must be a string, got null',
      ],
    ])('refuses %s with a message naming the part and what it must be', (_name, change, message) => {
      expect(refusal(changed(change))).toEqual(`[ERR_INVALID_OPTIONS] Agent: ${message}.`);
    });

    it.each<[string, (snapshot: Data) => void, string]>([
      [
        'a version that is a string',
        (snapshot) => (whole(snapshot).version = '2'),
        'options.snapshot.version must be 1, got the string "2"',
      ],
      [
        'a version that is not an integer',
        (snapshot) => (whole(snapshot).version = 1.5),
        'options.snapshot.version must be 1, got number 1.5',
      ],
      ['a version below 1', (snapshot) => (whole(snapshot).version = 0), 'options.snapshot.version must be 1, got number 0'],
      [
        'usage that is not an object',
        (snapshot) => (whole(snapshot).usage = 'none'),
        'options.snapshot.usage must be { inputTokens, outputTokens, totalTokens } (numbers), got the string "none"',
      ],
      [
        'usage without a total',
        (snapshot) => (whole(snapshot).usage = { inputTokens: 1, outputTokens: 1 }),
        'options.snapshot.usage must be { inputTokens, outputTokens, totalTokens } (numbers), got a plain object',
      ],
      [
        'usage with a count that is not finite',
        (snapshot) => (whole(snapshot).usage = { inputTokens: 1, outputTokens: 1, totalTokens: null }),
        'options.snapshot.usage must be { inputTokens, outputTokens, totalTokens } (numbers), got a plain object',
      ],
      [
        'a model state that is an array',
        (snapshot) => (whole(snapshot).modelState = []),
        'options.snapshot.modelState must be a plain object, got an array of length 0',
      ],
      [
        'messages that are not an array',
        (snapshot) => (whole(snapshot).messages = {}),
        'options.snapshot.messages must be an array of messages, got a plain object',
      ],
      [
        'a halted run that is a string',
        (snapshot) => (whole(snapshot).halted = 'yes'),
        'options.snapshot.halted must be null or a halted run, got the string "yes"',
      ],
      [
        'a halted run that is an array',
        (snapshot) => (whole(snapshot).halted = []),
        'options.snapshot.halted must be null or a halted run, got an array of length 0',
      ],
      [
        'an interrupt whose id is not a string',
        (snapshot) => ((snapshot.halted.interrupts[0] as Part).id = 5),
        'options.snapshot.halted.interrupts[0] must be an interrupt { id, name, reason } with a string id and name, got a plain object',
      ],
      [
        'responses that are null',
        (snapshot) => (haltedPart(snapshot).responses = null),
        'options.snapshot.halted.responses must be an object of responses by interrupt id, got null',
      ],
      [
        'a halted turn that is a number',
        (snapshot) => (haltedPart(snapshot).turn = 5),
        `${TURN} must be null or a halted turn { message, results }, got number 5`,
      ],
      [
        'an invocation state that is an array',
        (snapshot) => (haltedPart(snapshot).invocationState = []),
        'options.snapshot.halted.invocationState must be an object, got an array of length 0',
      ],
      [
        'input to replay that is not an array, without a halted turn',
        (snapshot) => Object.assign(haltedPart(snapshot), { turn: null, input: 'pay order 7' }),
        'options.snapshot.halted.input must be an array of messages, got the string "pay order 7"',
      ],
      [
        "a halted turn whose message is the user's",
        (snapshot) => (snapshot.halted.turn.message.role = 'user'),
        `${TURN}.message must be the assistant message whose tool uses the turn runs, got a plain object`,
      ],
      [
        'a halted turn whose results are not an array',
        (snapshot) => (snapshot.halted.turn.results = {} as Part[]),
        `${TURN}.results must be an array of toolResult blocks, got a plain object`,
      ],
      [
        'terminating ids of which one names no recorded result',
        (snapshot) => (snapshot.halted.turn.terminating = ['u1', 'u2']),
        `${TURN}.terminating must be an array of the tool-use ids of results in ${TURN}.results, got an array of length 2`,
      ],
    ])('refuses %s with a message naming the part and what it must be', (_name, change, message) => {
      expect(refusal(changed(change))).toEqual(`[ERR_INVALID_OPTIONS] Agent: ${message}.`);
    });

    it.each<[string, (snapshot: Data) => void]>([
      [
        'a text block with a field of a reasoning block, which it does not read',
        (snapshot) => (snapshot.messages[0] as MessageData).content.push({ type: 'text', text: 'hi', signature: 5 }),
      ],
      [
        'a recorded result whose content holds a json block with any JSON value',
        (snapshot) => (resultAt(snapshot).content = [{ type: 'json', json: null }]),
      ],
      ['the tool-use id of its recorded result as terminating', (snapshot) => (snapshot.halted.turn.terminating = ['u1'])],
    ])('accepts %s', (_name, change) => {
      expect(refusal(changed(change))).toEqual('restored');
    });
  });
});
