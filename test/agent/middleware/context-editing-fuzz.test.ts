/**
 * Generated inputs for the handlers that read what a model wrote: the
 * replies toolSelector reads tool names from, and the histories
 * clearToolResults edits (tool names like `__proto__` included).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clearToolResults,
  createModelContext,
  toolSelector,
  type InvokeModelContext,
  type Message,
  type ModelResultEvent,
  type ToolSpec,
} from '../../../src/agent/index';
import { ScriptedModel } from '../../../src/testing/index';

const NAMES = ['search', 'search_news', 'calc', '__proto__', 'constructor', 'mail-out'];
const RUNS = { numRuns: 200 };

/** A call of the handler alone, as the Input phase makes it. */
async function runInput(handler: ReturnType<typeof toolSelector>, context: InvokeModelContext): Promise<InvokeModelContext> {
  return handler(context, { handler: handler.name } as never);
}

/** An agent call offering every tool of NAMES, whose invokeModel answers `reply`. */
function selectionContext(reply: string): InvokeModelContext {
  const result: ModelResultEvent = {
    type: 'modelResult',
    message: { role: 'assistant', content: [{ type: 'text', text: reply }] },
    stopReason: 'endTurn',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };
  return createModelContext({
    model: new ScriptedModel([]),
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Help' }] }],
    systemPrompt: undefined,
    toolSpecs: NAMES.map((name): ToolSpec => ({ name, description: `Does ${name}.`, inputSchema: { type: 'object' } })),
    invocationState: {},
    invokeModel: () => Promise.resolve(result),
  });
}

/** Replies mixing tool names, near misses and noise. */
const replies = fc
  .array(fc.oneof(fc.constantFrom(...NAMES, 'search_', 'calcs', 'proto', '-calc', 'mail'), fc.string({ maxLength: 6 })), { maxLength: 8 })
  .chain((words) =>
    fc.tuple(
      fc.constant(words),
      fc.array(fc.constantFrom(' ', '\n', ', ', '`', '- ', '.'), { minLength: words.length, maxLength: words.length }),
    ),
  )
  .map(([words, separators]) => words.map((word, index) => `${word}${separators[index] ?? ''}`).join(''));

describe('toolSelector', () => {
  describe('any reply of the selecting model', () => {
    it('offers only tools the agent has, each once, at most maxTools plus those always included, in the agent order', async () => {
      await fc.assert(
        fc.asyncProperty(replies, fc.integer({ min: 1, max: 4 }), async (reply, maxTools) => {
          const offered = (await runInput(toolSelector({ maxTools, alwaysInclude: ['calc'] }), selectionContext(reply))).toolSpecs.map(
            (spec) => spec.name,
          );
          expect({
            known: offered.every((name) => NAMES.includes(name)),
            once: new Set(offered).size === offered.length,
            ordered: offered.join() === NAMES.filter((name) => offered.includes(name)).join(),
            capped: offered.filter((name) => name !== 'calc').length <= maxTools,
            always: offered.includes('calc'),
          }).toEqual({ known: true, once: true, ordered: true, capped: true, always: true });
        }),
        RUNS,
      );
    });
  });
});

/** Histories of tool calls by tools of NAMES, one call a turn. */
const histories = fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.string({ maxLength: 8 })), { maxLength: 10 }).map((calls) => {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }];
  calls.forEach(([name, text], index) => {
    messages.push({ role: 'assistant', content: [{ type: 'toolUse', toolUseId: `t${index}`, name, input: {} }] });
    messages.push({
      role: 'user',
      content: [{ type: 'toolResult', toolUseId: `t${index}`, name, status: 'success', content: [{ type: 'text', text }] }],
    });
  });
  return messages;
});

describe('clearToolResults', () => {
  describe('any history of tool results', () => {
    it('clears exactly the results before the last keep of the tools not excluded, once, and changes nothing else', () => {
      fc.assert(
        fc.property(histories, fc.integer({ min: 0, max: 4 }), fc.subarray(NAMES), (messages, keep, excludeTools) => {
          const context = createModelContext({
            model: new ScriptedModel([]),
            messages,
            systemPrompt: undefined,
            toolSpecs: [],
            invocationState: {},
          });
          const handler = clearToolResults({ keep, excludeTools, placeholder: '[cleared]' });
          const edited = handler(context, { handler: 'clearToolResults' } as never) as InvokeModelContext;
          const again = handler(edited, { handler: 'clearToolResults' } as never) as InvokeModelContext;
          const results = messages.flatMap((message) => message.content.flatMap((block) => (block.type === 'toolResult' ? [block] : [])));
          const expected = results.map((block, index) =>
            index < results.length - keep && !excludeTools.includes(block.name)
              ? { ...block, content: [{ type: 'text', text: '[cleared]' }] }
              : block,
          );
          const editedResults = edited.messages.flatMap((message) => message.content.filter((block) => block.type === 'toolResult'));
          const others = (list: readonly Message[]) =>
            list.map((message) => message.content.filter((block) => block.type !== 'toolResult'));
          expect([editedResults, others(edited.messages), again.messages === edited.messages]).toEqual([expected, others(messages), true]);
        }),
        RUNS,
      );
    });
  });
});
