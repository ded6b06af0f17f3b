import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../../src/core/index';
import { Agent, pii, type AgentEvent, type Message, type ModelStreamEvent, type PiiOptions, type Tool } from '../../../src/agent/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../../src/testing/index';
import { caught } from '../../assertions';

/** The text the model received in its first call's last user message. */
async function modelSees(options: PiiOptions, input: string): Promise<string> {
  const model = new ScriptedModel([textTurn('ok')]);
  const agent = new Agent({ model });
  agent.registry.use(pii(options));
  await agent.invoke(input);
  const messages = model.calls[0]?.request.messages ?? [];
  return textOf(messages[messages.length - 1]);
}

const textOf = (message: Message | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');

/** A model turn streaming `pieces` as text deltas. */
const deltas = (pieces: readonly string[]): { events: ModelStreamEvent[] } => ({
  events: [
    { type: 'messageStart', role: 'assistant' },
    ...pieces.map((text): ModelStreamEvent => ({ type: 'textDelta', text })),
    { type: 'messageStop', stopReason: 'endTurn' },
  ],
});

/** What an agent with `pii({ output })` streams and keeps for a model answer arriving in `pieces`. */
async function streamed(
  pieces: readonly string[],
  options: PiiOptions = { output: 'redact' },
): Promise<{ streamed: string; kept: string }> {
  const agent = new Agent({ model: new ScriptedModel([deltas(pieces)]) });
  agent.registry.use(pii(options));
  let text = '';
  for await (const event of agent.stream('go') as AsyncIterable<AgentEvent>) if (event.type === 'textDelta') text += event.text;
  return { streamed: text, kept: textOf(agent.messages[1]) };
}

describe('pii', () => {
  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['options that are not an object', 'redact'],
      ['no place to apply it', { types: ['email'] }],
      ['a strategy it does not know', { input: 'remove' }],
      ['a type it does not know', { input: 'redact', types: ['phone'] }],
      ['an unknown option', { input: 'redact', applyToInput: true }],
      ['a pattern that is not a RegExp', { input: 'redact', patterns: [{ name: 'id', pattern: 'E-\\d+' }] }],
      ['a pattern named like a built-in type', { input: 'redact', patterns: [{ name: 'email', pattern: /x/ }] }],
      ['a pattern maxLength of 0', { input: 'redact', patterns: [{ name: 'id', pattern: /x/, maxLength: 0 }] }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      const error = caught(() => pii(options as never));
      expect([MiddlewareError.isInstance(error), error.code, error.handler]).toEqual([true, 'ERR_INVALID_OPTIONS', 'pii']);
    });
  });

  describe('detection, in user input with the redact strategy', () => {
    it.each<[string, string, string]>([
      ['an e-mail address', 'Mail jane.doe+news@mail.example.co.uk today.', 'Mail [REDACTED_EMAIL] today.'],
      ['a card number that passes the Luhn check', 'Card 4111 1111 1111 1111, thanks', 'Card [REDACTED_CARD], thanks'],
      ['a card number with dashes', 'Card 5500-0000-0000-0004.', 'Card [REDACTED_CARD].'],
      ['no card number that fails the Luhn check', 'Order 4111 1111 1111 1112 shipped', 'Order 4111 1111 1111 1112 shipped'],
      ['an IPv4 address', 'From 192.168.0.12.', 'From [REDACTED_IP].'],
      ['no IPv4 address with an octet over 255', 'Version 1.2.3.256 is out', 'Version 1.2.3.256 is out'],
      ['no IPv4 address inside a longer dotted number', 'OID 1.2.3.4.5 here', 'OID 1.2.3.4.5 here'],
      ['an IPv6 address', 'Ping 2001:db8::8a2e:370:7334 now', 'Ping [REDACTED_IP] now'],
      ['the IPv6 loopback address', 'Bound to ::1 only', 'Bound to [REDACTED_IP] only'],
      ['no IPv6 address in a time of day or a C++ name', 'At 10:30:15 call std::string', 'At 10:30:15 call std::string'],
      ['a URL, without the closing punctuation', 'See (https://example.com/a?b=c).', 'See ([REDACTED_URL]).'],
      ['a URL starting with www.', 'Go to www.example.org now', 'Go to [REDACTED_URL] now'],
      ['an e-mail address inside a URL as part of the URL', 'https://x.io/u/jane@example.com', '[REDACTED_URL]'],
      ['an OpenAI-style key', 'key sk-proj-abcdefghijklmnopqrstuvwx ok', 'key [REDACTED_API_KEY] ok'],
      ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE', '[REDACTED_API_KEY]'],
      ['a GitHub token', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789!', 'token [REDACTED_API_KEY]!'],
      ['nothing in plain prose', 'Meet at noon in room 12.', 'Meet at noon in room 12.'],
    ])('finds %s', async (_label, input, expected) => {
      expect(await modelSees({ input: 'redact' }, input)).toEqual(expected);
    });

    it('looks only for the types given', async () => {
      expect(await modelSees({ input: 'redact', types: ['email'] }, 'jane@example.com from 10.0.0.1')).toEqual(
        '[REDACTED_EMAIL] from 10.0.0.1',
      );
    });

    it('finds patterns of your own, labelled in upper snake case', async () => {
      expect(await modelSees({ input: 'redact', patterns: [{ name: 'employeeId', pattern: /E-\d{6}/ }] }, 'Staff E-123456 here')).toEqual(
        'Staff [REDACTED_EMPLOYEE_ID] here',
      );
    });

    it('keeps the history as the user wrote it', async () => {
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]) });
      agent.registry.use(pii({ input: 'redact' }));
      await agent.invoke('I am jane@example.com');
      expect(textOf(agent.messages[0])).toEqual('I am jane@example.com');
    });
  });

  describe('the strategies', () => {
    it('masks all but the last four characters', async () => {
      expect(await modelSees({ input: 'mask' }, 'Card 4111111111111111 now')).toEqual('Card ************1111 now');
    });

    it('replaces a match with the first 8 hexadecimal digits of its SHA-256', async () => {
      const hash = createHash('sha256').update('jane@example.com').digest('hex').slice(0, 8);
      expect(await modelSees({ input: 'hash' }, 'I am jane@example.com')).toEqual(`I am [EMAIL_HASH:${hash}]`);
    });

    it('refuses the model call with ERR_PII_DETECTED naming the type, never the data', async () => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model });
      agent.registry.use(pii({ input: 'block' }));
      const error = (await agent.invoke('I am jane@example.com').catch((reason: unknown) => reason)) as MiddlewareError;
      expect({
        code: error.code,
        stage: error.stage,
        handler: error.handler,
        message: error.message.includes('jane'),
        modelCalls: model.calls.length,
      }).toEqual({ code: 'ERR_PII_DETECTED', stage: 'invokeModel', handler: 'pii', message: false, modelCalls: 0 });
    });
  });

  describe('model output', () => {
    it('redacts the streamed text and the message the history keeps alike, a match split across deltas included', async () => {
      expect(await streamed(['Write to ja', 'ne@exam', 'ple.com or 4111 1111 ', '1111 1111', ' today'])).toEqual({
        streamed: 'Write to [REDACTED_EMAIL] or [REDACTED_CARD] today',
        kept: 'Write to [REDACTED_EMAIL] or [REDACTED_CARD] today',
      });
    });

    it('lets text out as soon as nothing after it could change it', async () => {
      const agent = new Agent({ model: new ScriptedModel([deltas(['Hello there ', 'jane@exa', 'mple.com done'])]) });
      agent.registry.use(pii({ output: 'redact' }));
      const seen: string[] = [];
      for await (const event of agent.stream('go') as AsyncIterable<AgentEvent>) if (event.type === 'textDelta') seen.push(event.text);
      expect(seen).toEqual(['Hello there ', '[REDACTED_EMAIL] ', 'done']);
    });

    it('gives any split of a text the text a whole redaction gives', async () => {
      const fragments = fc.constantFrom(
        'jane@example.com',
        'a.b@c.io',
        '4111 1111 1111 1111',
        '4111 1111 1111 1112',
        '10.0.0.1',
        '1.2.3.4.5',
        '2001:db8::1',
        '::1',
        'https://example.com/x?y=1',
        'www.example.org',
        'sk-abcdefghijklmnopqrstuvwxyz',
        'AKIAIOSFODNN7EXAMPLE',
        ' ',
        '.',
        ', ',
        '@',
        ':',
        '-',
        'word',
        '12',
        'é',
        '\n',
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fragments, { maxLength: 12 }),
          fc.array(fc.nat(), { maxLength: 8 }),
          fc.constantFrom<PiiOptions>({ output: 'redact' }, { output: 'mask' }, { output: 'hash' }),
          async (parts, cuts, options) => {
            const text = parts.join('');
            const positions = [...new Set(cuts.map((cut) => (text.length === 0 ? 0 : cut % (text.length + 1))))].sort((a, b) => a - b);
            const pieces = [0, ...positions, text.length]
              .slice(1)
              .map((end, index, ends) => text.slice(index === 0 ? 0 : ends[index - 1], end));
            const whole = await streamed([text], options);
            expect(
              await streamed(
                pieces.filter((piece) => piece !== ''),
                options,
              ),
            ).toEqual(whole);
            expect(whole.streamed).toEqual(whole.kept);
          },
        ),
        { numRuns: 150 },
      );
    });

    it('fails the call with ERR_PII_DETECTED under block before any of the match is streamed', async () => {
      const agent = new Agent({ model: new ScriptedModel([deltas(['Key: sk-abcdefghij', 'klmnopqrstuvwxyz'])]) });
      agent.registry.use(pii({ output: 'block' }));
      let text = '';
      let code: unknown;
      try {
        for await (const event of agent.stream('go') as AsyncIterable<AgentEvent>) if (event.type === 'textDelta') text += event.text;
      } catch (error) {
        code = (error as MiddlewareError).code;
      }
      expect([text, code]).toEqual(['Key: ', 'ERR_PII_DETECTED']);
    });
  });

  describe('tool results', () => {
    it('redacts text blocks and the strings of JSON blocks, a __proto__ key kept as a key', async () => {
      const lookup: Tool = {
        spec: { name: 'lookup', description: 'Looks up.', inputSchema: { type: 'object' } },
        run: (input) =>
          (input as { kind?: string }).kind === 'text'
            ? 'Owner: jane@example.com'
            : (JSON.parse('{"ip":"10.1.2.3","list":["x@y.io",1],"__proto__":"a@b.co"}') as unknown),
      };
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'lookup', input: { kind: 'text' }, toolUseId: 't1' },
          { name: 'lookup', input: { kind: 'json' }, toolUseId: 't2' },
        ]),
        textTurn('ok'),
      ]);
      const agent = new Agent({ model, tools: [lookup] });
      agent.registry.use(pii({ toolResults: 'redact' }));
      await agent.invoke('who?');
      const [text, json] = (agent.messages[2]?.content ?? []).map((block) => (block.type === 'toolResult' ? block.content[0] : undefined));
      expect([text, json?.type === 'json' ? Object.entries(json.json as object) : json]).toEqual([
        { type: 'text', text: 'Owner: [REDACTED_EMAIL]' },
        [
          ['ip', '[REDACTED_IP]'],
          ['list', ['[REDACTED_EMAIL]', 1]],
          ['__proto__', '[REDACTED_EMAIL]'],
        ],
      ]);
    });
  });
});
