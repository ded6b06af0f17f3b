import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { MiddlewareError } from '../../src/core/index';
import { History, type Message } from '../../src/agent/index';
import { frozenCopy } from '../../src/agent/values/freeze';
import { fromAiSdk } from '../../src/ai-sdk/index';
import { sharedStart } from '../../src/core/internal';
import { mockModel, textParts } from './fixtures';
import { requestOf, result, user } from './prompt-requests';

/** Makes one call of `adapter` with `messages` and reads its stream to the end. */
async function callWith(adapter: ReturnType<typeof fromAiSdk>, messages: readonly Message[]): Promise<void> {
  for await (const _event of adapter.stream(requestOf({ messages }), { signal: new AbortController().signal, state: {} }));
}

/** The prompts one adapter sends for these conversations, one call each, in order. */
async function prompts(conversations: readonly (readonly Message[])[]): Promise<unknown[]> {
  const model = mockModel(...conversations.map(() => textParts(['ok'])));
  const adapter = fromAiSdk(model);
  for (const messages of conversations) {
    for await (const _event of adapter.stream(requestOf({ messages, system: [{ text: 'Be brief.' }] }), {
      signal: new AbortController().signal,
      state: {},
    }));
  }
  return model.doStreamCalls.map((call: LanguageModelV3CallOptions) => call.prompt);
}

const toolUse = (toolUseId: string, name: string): Message => ({
  role: 'assistant',
  content: [{ type: 'toolUse', toolUseId, name, input: { city: 'Oslo' } }],
});

/** A tool result without a name, as results stored before results carried names are. */
const namelessResult = (toolUseId: string): Message => ({
  role: 'user',
  // A nameless result is not what the types promise today, but what a stored conversation may hold.
  content: [{ type: 'toolResult', toolUseId, status: 'success', content: [{ type: 'text', text: 'sunny' }] } as never],
});

/**
 * Histories record which of their arrays extend which only once a reader has asked (the adapter asks from its
 * second call of a conversation on); asked here, so that the adapter reads the histories a test makes afterwards
 * through their lineage rather than by comparing them.
 */
function recordLineage(): void {
  sharedStart([], []);
}

describe('fromAiSdk', () => {
  describe('a conversation that grows from call to call (MW-145)', () => {
    it("sends the right prompt for a history's arrays that branch from one another, as requests from one stored conversation do", async () => {
      recordLineage();
      const stored = new History([user('Hi'), toolUse('t1', 'weather')]);
      stored.append(namelessResult('t1'));
      const base = stored.messages;
      // Two requests from the stored conversation, each a history of its own that appends what its run adds.
      const branch = (question: string): (readonly Message[])[] => {
        const history = new History(base);
        history.append(user(question));
        const asked = history.messages;
        history.append(toolUse(`t-${question}`, 'news'), {
          role: 'user',
          content: [result(`t-${question}`, 'news', [{ type: 'text', text: `news for ${question}` }])],
        });
        return [asked, history.messages];
      };
      const [firstAsked, firstAnswered] = branch('one') as [readonly Message[], readonly Message[]];
      const [secondAsked, secondAnswered] = branch('two') as [readonly Message[], readonly Message[]];
      const sent = [firstAsked, firstAnswered, secondAsked, secondAnswered, firstAsked, base];
      const reused = await prompts(sent);
      const fresh = [];
      for (const messages of sent) fresh.push(...(await prompts([messages])));
      expect(reused).toEqual(fresh);
      expect((reused[3] as unknown[]).slice(-3)).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'two' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't-two', toolName: 'news', input: { city: 'Oslo' } }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 't-two', toolName: 'news', output: { type: 'text', value: 'news for two' } }],
        },
      ]);
    });

    it('sends each call the prompt a fresh adapter sends for the same messages', async () => {
      const first = frozenCopy([user('Hi'), toolUse('t1', 'weather')]);
      const second = Object.freeze([...first, namelessResult('t1'), toolUse('t2', 'news')]);
      const third = Object.freeze([
        ...second,
        { role: 'user', content: [result('t2', 'news', [{ type: 'json', json: { n: 1 } }])] },
      ] as Message[]);
      const reused = await prompts([first, second, third]);
      const fresh = [...(await prompts([first])), ...(await prompts([second])), ...(await prompts([third]))];
      expect(reused).toEqual(fresh);
      expect(reused[2]).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Oslo' } }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'weather', output: { type: 'text', value: 'sunny' } }],
        },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't2', toolName: 'news', input: { city: 'Oslo' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't2', toolName: 'news', output: { type: 'json', value: { n: 1 } } }] },
      ]);
    });

    it('hands on the prompt messages of the frozen messages an earlier call sent, the very same objects', async () => {
      const first = frozenCopy([user('Hi'), toolUse('t1', 'weather')]);
      const second = Object.freeze([...first, namelessResult('t1')]);
      const [before, after] = (await prompts([first, second])) as [unknown[], unknown[]];
      expect([after[1] === before[1], after[2] === before[2], after.length]).toEqual([true, true, 4]);
    });

    it("hands on the prompt messages of a history's earlier messages, the very same objects", async () => {
      recordLineage();
      const history = new History([user('Hi'), toolUse('t1', 'weather')]);
      const asked = history.messages;
      history.append({ role: 'user', content: [result('t1', 'weather', [{ type: 'text', text: 'sunny' }])] });
      const [before, after] = (await prompts([asked, history.messages])) as [unknown[], unknown[]];
      expect([after[1] === before[1], after[2] === before[2], after.length]).toEqual([true, true, 4]);
    });

    it('hands on every prompt message again for the same conversation sent twice', async () => {
      const messages = frozenCopy([user('Hi'), toolUse('t1', 'weather')]);
      const [before, after] = (await prompts([messages, messages])) as [unknown[], unknown[]];
      expect([after[1] === before[1], after[2] === before[2], after.length]).toEqual([true, true, 3]);
    });

    it('sends an empty prompt, but for the system prompt, for a conversation without messages, each call', async () => {
      expect(await prompts([[], []])).toEqual([[{ role: 'system', content: 'Be brief.' }], [{ role: 'system', content: 'Be brief.' }]]);
    });

    it('sends a message that is not frozen as it is now, even when an earlier call sent it otherwise', async () => {
      const greeting = user('Hi');
      const messages = [greeting, user('Again')];
      const model = mockModel(textParts(['ok']), textParts(['ok']));
      const adapter = fromAiSdk(model);
      const call = async (): Promise<void> => {
        for await (const _event of adapter.stream(requestOf({ messages: [...messages] }), {
          signal: new AbortController().signal,
          state: {},
        }));
      };
      await call();
      (greeting.content as unknown[])[0] = { type: 'text', text: 'Hello' };
      await call();
      expect(model.doStreamCalls.map((sent: LanguageModelV3CallOptions) => sent.prompt[0])).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      ]);
    });

    it('sends a conversation that changed an earlier message with that message as it is now', async () => {
      const first = frozenCopy([user('Hi'), user('Again')]);
      const edited = Object.freeze([first[0] as Message, frozenCopy(user('Instead')), frozenCopy(user('More'))]);
      expect((await prompts([first, edited]))[1]).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'user', content: [{ type: 'text', text: 'Instead' }] },
        { role: 'user', content: [{ type: 'text', text: 'More' }] },
      ]);
    });

    it('gives each call a prompt array of its own, so a provider that changes the array changes no later call', async () => {
      const first = frozenCopy([user('Hi'), toolUse('t1', 'weather')]);
      const second = Object.freeze([...first, namelessResult('t1')]);
      const model = mockModel(textParts(['ok']), textParts(['ok']));
      const adapter = fromAiSdk(model);
      const options = { signal: new AbortController().signal, state: {} };
      for await (const _event of adapter.stream(requestOf({ messages: first }), options));
      const sent = model.doStreamCalls[0]?.prompt ?? [];
      sent.splice(0, sent.length, { role: 'user', content: [{ type: 'text', text: 'changed' }] });
      for await (const _event of adapter.stream(requestOf({ messages: second }), options));
      expect(model.doStreamCalls[1]?.prompt).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Oslo' } }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'weather', output: { type: 'text', value: 'sunny' } }],
        },
      ]);
    });

    it('hands on frozen prompt messages, so a provider that changes its prompt fails instead of changing later calls', async () => {
      const first = frozenCopy([user('Hi'), toolUse('t1', 'weather')]);
      const second = Object.freeze([...first, namelessResult('t1')]);
      const model = mockModel(textParts(['ok']), textParts(['ok']));
      const adapter = fromAiSdk(model);
      const options = { signal: new AbortController().signal, state: {} };
      for (const messages of [first, second]) for await (const _event of adapter.stream(requestOf({ messages }), options));
      const [greeting] = model.doStreamCalls[1]?.prompt ?? [];
      expect(greeting).toEqual({ role: 'user', content: [{ type: 'text', text: 'Hi' }] });
      expect(() => (greeting?.content as unknown[]).push({ type: 'text', text: 'changed' })).toThrow(TypeError);
      expect(() => Object.assign(greeting ?? {}, { role: 'system' })).toThrow(TypeError);
    });
  });

  describe('with a cachePoint option of the user (MW-145)', () => {
    const cached: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'Hi' },
        { type: 'cachePoint', cacheType: 'default' },
      ],
    };

    it("sends a copy of the user's provider options in a frozen prompt, leaving the user's objects unfrozen", async () => {
      const cacheControl = { type: 'ephemeral', ttl: '1h' };
      const model = mockModel(textParts(['ok']));
      const adapter = fromAiSdk(model, { cachePoint: () => ({ anthropic: { cacheControl } }) });
      await callWith(adapter, frozenCopy([cached]));
      const [sent] = model.doStreamCalls[0]?.prompt ?? [];
      const part = (sent?.content as { providerOptions?: { anthropic?: { cacheControl?: unknown } } }[])[0];
      expect([part?.providerOptions, Object.isFrozen(sent), Object.isFrozen(part?.providerOptions?.anthropic?.cacheControl)]).toEqual([
        { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } },
        true,
        true,
      ]);
      expect([Object.isFrozen(cacheControl), part?.providerOptions?.anthropic?.cacheControl === cacheControl]).toEqual([false, false]);
    });

    it("leaves unfrozen what a frozen constant of the user's holds, and sends its JSON form", async () => {
      const cacheControl = { type: 'ephemeral', ttl: '1h' };
      const shared = Object.freeze({ anthropic: Object.freeze({ cacheControl }), ['__proto__']: { polluted: true } });
      const model = mockModel(textParts(['ok']));
      const adapter = fromAiSdk(model, { cachePoint: () => shared });
      await callWith(adapter, [cached]);
      const [sent] = model.doStreamCalls[0]?.prompt ?? [];
      const options = (sent?.content as { providerOptions?: Record<string, unknown> }[])[0]?.providerOptions;
      expect({
        frozen: Object.isFrozen(cacheControl),
        ownProto: Object.keys(options ?? {}),
        polluted: ({} as { polluted?: unknown }).polluted,
      }).toEqual({ frozen: false, ownProto: ['anthropic', '__proto__'], polluted: undefined });
    });

    it('sends the whole conversation again after a call of it failed while converting', async () => {
      const looped: Record<string, unknown> = {};
      looped.self = looped;
      const model = mockModel(textParts(['ok']), textParts(['ok']));
      const adapter = fromAiSdk(model, {
        cachePoint: (type) => (type === 'bad' ? { anthropic: { cacheControl: looped as never } } : undefined),
      });
      const send = (messages: readonly Message[]) => callWith(adapter, messages);
      const [first, second, third, fourth] = frozenCopy([user('one'), user('two'), user('three'), user('four')]); // reused only when frozen
      await send([first, second, third]);
      const refused = await send([
        first,
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'cachePoint', cacheType: 'bad' },
          ],
        },
      ]).then(
        () => 'sent',
        (error: unknown) => (error as MiddlewareError).code,
      );
      await send([first, second, third, fourth]);
      const texts = (model.doStreamCalls[1]?.prompt ?? []).map((message) => (message.content as { text?: string }[])[0]?.text);
      expect({ refused, texts }).toEqual({ refused: 'ERR_INVALID_OPTIONS', texts: ['one', 'two', 'three', 'four'] });
    });

    it('fails the call with ERR_INVALID_OPTIONS when the provider options cannot be copied', async () => {
      const looped: Record<string, unknown> = { type: 'ephemeral' };
      looped.self = looped;
      const adapter = fromAiSdk(mockModel(textParts(['ok'])), { cachePoint: () => ({ anthropic: { cacheControl: looped as never } }) });
      const error = await callWith(adapter, [cached]).then(
        () => undefined,
        (thrown: unknown) => thrown as MiddlewareError,
      );
      expect([error?.code, error?.stage, error?.message]).toEqual([
        'ERR_INVALID_OPTIONS',
        'invokeModel',
        '[ERR_INVALID_OPTIONS] fromAiSdk: what options.cachePoint returned cannot be copied: options.cachePoint("default").anthropic.cacheControl.self refers back to options.cachePoint("default").anthropic.cacheControl (a cycle). Return plain data from it: objects, arrays, strings, numbers, booleans and null.',
      ]);
    });
  });
});
