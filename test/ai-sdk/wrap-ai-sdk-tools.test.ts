import type { LanguageModelV3Content, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  ExecuteToolStage,
  approvalPolicy,
  genAiSpans,
  errorResult,
  errorsAsAnswers,
  toolErrorAnswer,
  type ExecuteToolContext,
} from '../../src/agent/index';
import { wrapAiSdkTools } from '../../src/ai-sdk/index';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { retry, timeout, tracing } from '../../src/middleware/index';
import { caught, failure } from '../assertions';
import { finishPart, mockModel, textParts, usage } from './fixtures';
import { manualTimers } from '../middleware/fixtures';

/** A generate result of these content parts. */
function generated(content: LanguageModelV3Content[], unified: 'stop' | 'tool-calls' = 'stop'): LanguageModelV3GenerateResult {
  return { content, finishReason: { unified, raw: undefined }, usage: usage(3, 2), warnings: [] };
}

/** A tool call content part of a generate result. */
function toolCall(toolCallId: string, toolName: string, input: unknown): LanguageModelV3Content {
  return { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) };
}

/** A mock model whose doGenerate answers these results in order. */
function generatingModel(...results: LanguageModelV3GenerateResult[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({ doGenerate: results });
}

/** The last tool message the model received in call `index`. */
function toolMessage(model: MockLanguageModelV3, index: number): unknown {
  return model.doGenerateCalls[index]?.prompt.filter((message) => message.role === 'tool').at(-1);
}

/** What execute gives the AI SDK's loop, called by hand as the loop calls it. */
function callOf(tools: Record<string, { execute?: unknown }>, name: string, input: unknown, toolCallId = 'call-1'): Promise<unknown> {
  const execute = tools[name]?.execute as (input: unknown, options: unknown) => Promise<unknown>;
  return execute(input, { toolCallId, messages: [] });
}

const weatherTool = (calls: string[]) =>
  tool({
    description: 'The weather in a city.',
    inputSchema: z.object({ city: z.string() }),
    execute: ({ city }) => {
      calls.push(city);
      if (calls.length === 1) throw new Error('connection reset');
      return `Sunny in ${city}`;
    },
  });

describe('wrapAiSdkTools', () => {
  describe('generateText with a tool loop', () => {
    it('runs each call through ExecuteToolStage: a retry repeats a failed call, a guard answers, and the model reads the answers', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, retry({ attempts: 2, backoff: () => 0 }));
      registry.add(ExecuteToolStage.Wrap, async function* noDeletes(context, next) {
        if (context.toolUse.name === 'deleteFiles') yield errorResult(context.toolUse, 'Deleting needs a human.');
        else yield* next();
      });
      const calls: string[] = [];
      const deleted: string[] = [];
      const tools = wrapAiSdkTools(registry, {
        weather: weatherTool(calls),
        deleteFiles: tool({
          inputSchema: z.object({ path: z.string() }),
          execute: ({ path }) => void deleted.push(path),
        }),
      });
      const model = generatingModel(
        generated([toolCall('w1', 'weather', { city: 'Paris' }), toolCall('d1', 'deleteFiles', { path: '/' })], 'tool-calls'),
        generated([{ type: 'text', text: 'Sunny; nothing deleted.' }]),
      );
      const result = await generateText({ model, tools, prompt: 'Weather, then tidy up', stopWhen: stepCountIs(3) });
      expect([result.text, calls, deleted, toolMessage(model, 1)]).toEqual([
        'Sunny; nothing deleted.',
        ['Paris', 'Paris'],
        [],
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'w1', toolName: 'weather', output: { type: 'text', value: 'Sunny in Paris' } },
            {
              type: 'tool-result',
              toolCallId: 'd1',
              toolName: 'deleteFiles',
              output: { type: 'error-text', value: 'Deleting needs a human.' },
            },
          ],
        },
      ]);
    });

    it("passes the AI SDK's tool call id, messages and abort signal on to execute, and gives the stage the call", async () => {
      const registry = new MiddlewareRegistry();
      const contexts: ExecuteToolContext[] = [];
      registry.add(ExecuteToolStage.Input, function record(context: ExecuteToolContext) {
        contexts.push(context);
        return context;
      });
      const seen: unknown[] = [];
      const controller = new AbortController();
      const tools = wrapAiSdkTools(registry, {
        weather: tool({
          description: 'The weather in a city.',
          inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }),
          execute: (input, options) => {
            seen.push(input, options.toolCallId, options.messages, options.abortSignal?.aborted);
            return 'Sunny';
          },
        }),
      });
      const model = generatingModel(
        generated([toolCall('w1', 'weather', { city: 'Oslo' })], 'tool-calls'),
        generated([{ type: 'text', text: 'ok' }]),
      );
      await generateText({ model, tools, prompt: 'Weather in Oslo?', stopWhen: stepCountIs(2), abortSignal: controller.signal });
      const [context] = contexts;
      expect([seen, context?.toolUse, context?.tool?.spec, context?.signal.aborted, Object.isFrozen(context)]).toEqual([
        [{ city: 'Oslo' }, 'w1', [{ role: 'user', content: 'Weather in Oslo?' }], false],
        { name: 'weather', toolUseId: 'w1', input: { city: 'Oslo' } },
        {
          name: 'weather',
          description: 'The weather in a city.',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        },
        false,
        true,
      ]);
    });
  });

  describe('under GenAI tracing', () => {
    it('gives each tool call of the loop its execute_tool span, named after the tool, with the call id', async () => {
      const exporter = new InMemorySpanExporter();
      const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer, conventions: [genAiSpans] }));
      const tools = wrapAiSdkTools(registry, { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: () => 'Sunny' }) });
      const model = generatingModel(
        generated([toolCall('w1', 'weather', { city: 'Oslo' })], 'tool-calls'),
        generated([{ type: 'text', text: 'ok' }]),
      );
      await generateText({ model, tools, prompt: 'Weather in Oslo?', stopWhen: stepCountIs(2) });
      const toolSpans = exporter.getFinishedSpans().filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
      expect(toolSpans.map((span) => [span.name, span.attributes['gen_ai.tool.call.id']])).toEqual([['execute_tool weather', 'w1']]);
    });
  });

  describe('streamText with a tool loop', () => {
    it('streams a tool-result part for an answered call and a tool-error part for an error result', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* noDeletes(context, next) {
        if (context.toolUse.name === 'deleteFiles') yield errorResult(context.toolUse, 'Deleting needs a human.');
        else yield* next();
      });
      const tools = wrapAiSdkTools(registry, {
        weather: tool({ inputSchema: z.object({ city: z.string() }), execute: ({ city }) => ({ city, celsius: 21 }) }),
        deleteFiles: tool({ inputSchema: z.object({ path: z.string() }), execute: () => 'deleted' }),
      });
      const model = mockModel(
        [
          { type: 'stream-start', warnings: [] },
          { type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: '{"city":"Paris"}' },
          { type: 'tool-call', toolCallId: 'd1', toolName: 'deleteFiles', input: '{"path":"/"}' },
          finishPart('tool-calls'),
        ],
        textParts(['Done.']),
      );
      const result = streamText({ model, tools, prompt: 'Go', stopWhen: stepCountIs(3) });
      // By tool call id: the calls run side by side, and the guard's answer may come first.
      const parts: Record<string, unknown> = {};
      for await (const part of result.fullStream)
        if (part.type === 'tool-result') parts[part.toolCallId] = [part.type, part.output];
        else if (part.type === 'tool-error')
          parts[part.toolCallId] = [part.type, (part.error as Error).name, (part.error as Error).message];
      expect([parts, await result.text]).toEqual([
        { w1: ['tool-result', { city: 'Paris', celsius: 21 }], d1: ['tool-error', 'ToolResultError', 'Deleting needs a human.'] },
        'Done.',
      ]);
    });
  });

  describe('what the loop receives', () => {
    it("is the tool's own value, the very object, when no handler replaced the result (a retry and a timeout pass it on)", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, retry({ attempts: 2, backoff: () => 0 }));
      registry.add(ExecuteToolStage.Wrap, timeout(60_000));
      const answer = { when: new Date(0) };
      const tools = wrapAiSdkTools(registry, { clock: tool({ inputSchema: z.object({}), execute: () => answer }) });
      expect(await callOf(tools, 'clock', {})).toBe(answer);
    });

    it('is the content of the result an Output handler made: one text block as its text', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Output, (result) =>
        result.update((draft) => {
          draft.toolResult.content = [{ type: 'text', text: 'Sunny (checked)' }];
        }),
      );
      const tools = wrapAiSdkTools(registry, { weather: tool({ inputSchema: z.object({}), execute: () => 'Sunny' }) });
      expect(await callOf(tools, 'weather', {})).toBe('Sunny (checked)');
    });

    it('is the last value of a tool that streams preliminary results', async () => {
      const tools = wrapAiSdkTools(new MiddlewareRegistry(), {
        progress: tool({
          inputSchema: z.object({}),
          async *execute() {
            yield { done: 1 };
            yield { done: 2 };
          },
        }),
      });
      expect(await callOf(tools, 'progress', {})).toEqual({ done: 2 });
    });

    it('is a rejection with the very value the tool threw when no handler answers for it', async () => {
      const thrown = new Error('connection reset');
      const tools = wrapAiSdkTools(new MiddlewareRegistry(), {
        weather: tool({
          inputSchema: z.object({}),
          execute: (): string => {
            throw thrown;
          },
        }),
      });
      expect(await failure(callOf(tools, 'weather', {}))).toBe(thrown);
    });

    it('is a ToolResultError whose message joins the text of each part, a JSON part as its JSON text, one per line', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* refuse(context) {
        const refused = errorResult(context.toolUse, 'Refused:');
        const json = { type: 'json', json: { reason: 'quota', left: 0 } } as const;
        yield { ...refused, toolResult: { ...refused.toolResult, content: [...refused.toolResult.content, json] } };
      });
      const tools = wrapAiSdkTools(registry, { weather: tool({ inputSchema: z.object({}), execute: () => 'Sunny' }) });
      const error = (await failure(callOf(tools, 'weather', {}))) as Error;
      expect([error.name, error.message]).toEqual(['ToolResultError', 'Refused:\n{"reason":"quota","left":0}']);
    });

    it("is a ToolResultError carrying the result's text, block and error when errorsAsAnswers answers", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer }));
      const thrown = new Error('bad input');
      const tools = wrapAiSdkTools(registry, {
        parse: tool({
          inputSchema: z.object({}),
          execute: (): string => {
            throw thrown;
          },
        }),
      });
      const error = (await failure(callOf(tools, 'parse', {}, 'p1'))) as Error & { toolResult: unknown };
      expect([error.name, error.message, error.toString(), error.cause, error.toolResult]).toEqual([
        'ToolResultError',
        'Tool "parse" failed: bad input',
        'Tool "parse" failed: bad input',
        thrown,
        {
          type: 'toolResult',
          toolUseId: 'p1',
          name: 'parse',
          status: 'error',
          content: [{ type: 'text', text: 'Tool "parse" failed: bad input' }],
        },
      ]);
      expect(error.cause).toBe(thrown);
    });

    it("aborts the tool's signal when a timeout handler gives up, and rejects with its error", async () => {
      const registry = new MiddlewareRegistry();
      // The deadline passes only once the tool runs, however slow the machine.
      const timers = manualTimers();
      registry.add(ExecuteToolStage.Wrap, timeout(1, { timers }));
      const aborted: boolean[] = [];
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const tools = wrapAiSdkTools(registry, {
        slow: tool({
          inputSchema: z.object({}),
          execute: (_input, { abortSignal }) =>
            new Promise((resolve) => {
              abortSignal?.addEventListener('abort', () => {
                aborted.push(abortSignal.aborted);
                resolve('late');
              });
              started();
            }),
        }),
      });
      const call = failure(callOf(tools, 'slow', {}));
      await running;
      await timers.advance(1);
      const error = await call;
      expect([(error as MiddlewareError).code, aborted]).toEqual(['ERR_TIMEOUT', [true]]);
    });
  });

  describe('approval', () => {
    it("asks through the AI SDK's own approval: an approved call runs with approvalPolicy answered, a denied one never runs", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, approvalPolicy({ sendEmail: true }));
      const tools = wrapAiSdkTools(
        registry,
        { sendEmail: tool({ inputSchema: z.object({ to: z.string() }), execute: ({ to }) => `sent to ${to}` }) },
        { approval: { sendEmail: (input) => (input as { to: string }).to !== 'me@example.com' } },
      );
      const model = generatingModel(
        generated(
          [toolCall('m1', 'sendEmail', { to: 'ada@example.com' }), toolCall('m2', 'sendEmail', { to: 'bob@example.com' })],
          'tool-calls',
        ),
        generated([{ type: 'text', text: 'Mailed Ada.' }]),
      );
      const prompt: ModelMessage[] = [{ role: 'user', content: 'Mail Ada and Bob' }];
      const first = await generateText({ model, tools, messages: prompt, stopWhen: stepCountIs(3) });
      const requests = first.content.flatMap((part) => (part.type === 'tool-approval-request' ? [part] : []));
      const [ada, bob] = requests;
      const answers: ModelMessage = {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: ada?.approvalId ?? '', approved: true },
          { type: 'tool-approval-response', approvalId: bob?.approvalId ?? '', approved: false, reason: 'Not Bob.' },
        ],
      };
      const second = await generateText({
        model,
        tools,
        messages: [...prompt, ...first.response.messages, answers],
        stopWhen: stepCountIs(3),
      });
      expect([requests.map((request) => request.toolCall.toolCallId), second.text, toolMessage(model, 1)]).toEqual([
        ['m1', 'm2'],
        'Mailed Ada.',
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'm1', toolName: 'sendEmail', output: { type: 'text', value: 'sent to ada@example.com' } },
            { type: 'tool-result', toolCallId: 'm2', toolName: 'sendEmail', output: { type: 'execution-denied', reason: 'Not Bob.' } },
          ],
        },
      ]);
    });

    it("gives a predicate the call's tool use and the shared invocation state", async () => {
      const invocationState = { user: 'ada' };
      const checks: unknown[] = [];
      const tools = wrapAiSdkTools(
        new MiddlewareRegistry(),
        { sendEmail: tool({ inputSchema: z.object({ to: z.string() }), execute: () => 'sent' }) },
        {
          invocationState,
          approval: {
            sendEmail: {
              when: (input, context) => {
                checks.push(input, context.toolUse, context.invocationState === invocationState);
                return true;
              },
            },
          },
        },
      );
      const needsApproval = tools.sendEmail.needsApproval as unknown as (
        input: unknown,
        options: { toolCallId: string },
      ) => Promise<boolean>;
      expect([await needsApproval({ to: 'bob@example.com' }, { toolCallId: 'm1' }), checks]).toEqual([
        true,
        [{ to: 'bob@example.com' }, { name: 'sendEmail', toolUseId: 'm1', input: { to: 'bob@example.com' } }, true],
      ]);
    });

    it('rejects the check with ERR_INVALID_OPTIONS when a predicate answers no boolean', async () => {
      const tools = wrapAiSdkTools(
        new MiddlewareRegistry(),
        { sendEmail: tool({ inputSchema: z.object({}), execute: () => 'sent' }) },
        { approval: { sendEmail: (() => 'yes') as never } },
      );
      const needsApproval = tools.sendEmail.needsApproval as unknown as (
        input: unknown,
        options: { toolCallId: string },
      ) => Promise<boolean>;
      const error = (await failure(needsApproval({}, { toolCallId: 'm1' }))) as MiddlewareError;
      expect([error.code, error.stage, error.message]).toEqual([
        'ERR_INVALID_OPTIONS',
        'executeTool',
        '[ERR_INVALID_OPTIONS] wrapAiSdkTools(): the approval predicate of tool "sendEmail" must return a boolean, got the string "yes".',
      ]);
    });
  });

  describe('questions', () => {
    it('rejects a call with ERR_AI_SDK_CANNOT_HALT when a handler asks without a response, even when errorsAsAnswers answers', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer }));
      registry.add(ExecuteToolStage.Wrap, async function* confirm(context, next) {
        context.interrupt({ name: 'confirm' });
        yield* next();
      });
      const ran: string[] = [];
      const tools = wrapAiSdkTools(registry, { archive: tool({ inputSchema: z.object({}), execute: () => void ran.push('archive') }) });
      const error = (await failure(callOf(tools, 'archive', {}, 'a1'))) as MiddlewareError;
      expect([error.code, error.stage, error.message.split(' inside ')[0], ran]).toEqual([
        'ERR_AI_SDK_CANNOT_HALT',
        'executeTool',
        '[ERR_AI_SDK_CANNOT_HALT] interrupt() asked "executeTool:a1:confirm"',
        [],
      ]);
    });

    it('answers a question whose response the request gives, without a halt', async () => {
      const registry = new MiddlewareRegistry();
      const responses: unknown[] = [];
      registry.add(ExecuteToolStage.Wrap, async function* confirm(context, next) {
        responses.push(context.interrupt({ name: 'confirm', response: 'yes' }).response);
        yield* next();
      });
      const tools = wrapAiSdkTools(registry, { archive: tool({ inputSchema: z.object({}), execute: () => 'archived' }) });
      expect([await callOf(tools, 'archive', {}), responses]).toEqual(['archived', ['yes']]);
    });
  });

  describe('the tool set', () => {
    it('is frozen, keeps a tool without execute as the very object, and keeps every other key of a wrapped tool', () => {
      const external = tool({ inputSchema: z.object({}), outputSchema: z.string() });
      const toModelOutput = () => ({ type: 'text' as const, value: 'x' });
      const weather = tool({ description: 'Weather.', inputSchema: z.object({}), execute: () => 'Sunny', toModelOutput });
      const tools = wrapAiSdkTools(new MiddlewareRegistry(), { external, weather });
      expect([
        Object.isFrozen(tools),
        tools.external === external,
        tools.weather === weather,
        tools.weather.toModelOutput === toModelOutput,
      ]).toEqual([true, true, false, true]);
    });
  });

  describe('reading the tool set', () => {
    it('reads each tool once, one the approval names included', () => {
      const reads: string[] = [];
      const weather = tool({ inputSchema: z.object({}), execute: () => 'Sunny' });
      const set = Object.defineProperty({}, 'weather', {
        enumerable: true,
        get() {
          reads.push('weather');
          return weather;
        },
      }) as { weather: typeof weather };
      wrapAiSdkTools(new MiddlewareRegistry(), set, { approval: { weather: true } });
      expect(reads).toEqual(['weather']);
    });
  });

  describe('an execute called without the AI SDK options', () => {
    it('rejects with ERR_INVALID_OPTIONS on executeTool, naming the tool', async () => {
      const tools = wrapAiSdkTools(new MiddlewareRegistry(), { weather: tool({ inputSchema: z.object({}), execute: () => 'Sunny' }) });
      const execute = tools.weather.execute as unknown as (input: unknown, options: unknown) => Promise<unknown>;
      const error = (await failure(execute({}, {}))) as MiddlewareError;
      expect([error.code, error.stage, error.handler, error.message]).toEqual([
        'ERR_INVALID_OPTIONS',
        'executeTool',
        'wrapAiSdkTools',
        '[ERR_INVALID_OPTIONS] wrapAiSdkTools(): the execute of tool "weather" takes (input, { toolCallId, abortSignal?, ... }) as the AI SDK calls it, got options a plain object.',
      ]);
    });
  });

  describe('bad arguments', () => {
    const registry = new MiddlewareRegistry();
    const weather = tool({ inputSchema: z.object({}), execute: () => 'Sunny' });
    it.each<[string, unknown, unknown, unknown, string]>([
      ['no registry', undefined, { weather }, undefined, 'registry must be a MiddlewareRegistry, got undefined'],
      [
        'a tool set that is an array',
        registry,
        [weather],
        undefined,
        "tools must be the AI SDK's tool set, an object { [name]: tool(...) }, got an array of length 1",
      ],
      [
        'an execute that is no function',
        registry,
        { weather: { execute: 1 } },
        undefined,
        'tools["weather"].execute must be a function or absent, got number 1',
      ],
      [
        'an invocation state that is no object',
        registry,
        { weather },
        { invocationState: 1 },
        'options.invocationState must be an object, got number 1',
      ],
      [
        'an approval of a tool the set does not have',
        registry,
        { weather },
        { approval: { mail: true } },
        'options.approval["mail"] names no tool of the tool set that has an execute function to approve',
      ],
      [
        'an approval of a tool with a needsApproval of its own',
        registry,
        { weather: { ...weather, needsApproval: true } },
        { approval: { weather: true } },
        'options.approval["weather"] is given, but the tool "weather" has a needsApproval of its own: say when it needs approval in one place, the tool or options.approval',
      ],
      [
        'an approval rule that is a number',
        registry,
        { weather },
        { approval: { weather: 1 } },
        'options.approval["weather"] must be a boolean, a function or { when? }, got number 1',
      ],
      [
        'an approval rule whose when is a string',
        registry,
        { weather },
        { approval: { weather: { when: 'always' } } },
        'options.approval["weather"] needs when to be a boolean or a function, got the string "always"',
      ],
      [
        'an approval rule with approve twice',
        registry,
        { weather },
        { approval: { weather: { decisions: ['approve', 'approve'] } } },
        `options.approval["weather"].decisions must be ['approve', 'reject'] or left out, got an array of length 2: the AI SDK's approval answer approves or denies a call, so an edit of its input (or a question without one of the two) cannot be expressed`,
      ],
      [
        'an approval with an edit decision',
        registry,
        { weather },
        { approval: { weather: { decisions: ['approve', 'edit', 'reject'] } } },
        `options.approval["weather"].decisions must be ['approve', 'reject'] or left out, got an array of length 3: the AI SDK's approval answer approves or denies a call, so an edit of its input (or a question without one of the two) cannot be expressed`,
      ],
      [
        'an approval with a description',
        registry,
        { weather },
        { approval: { weather: { description: 'Sends mail.' } } },
        'options.approval["weather"].description cannot be expressed: the AI SDK\'s tool-approval-request carries the tool call, and no text for the human; leave it out and show your own text beside the request',
      ],
    ])('refuses %s with ERR_INVALID_OPTIONS', (_name, givenRegistry, tools, options, problem) => {
      const error = caught(() => wrapAiSdkTools(givenRegistry as never, tools as never, options as never));
      expect([error.code, error.phase, error.handler, error.message]).toEqual([
        'ERR_INVALID_OPTIONS',
        'register',
        'wrapAiSdkTools',
        `[ERR_INVALID_OPTIONS] wrapAiSdkTools(): ${problem}.`,
      ]);
    });
  });
});
