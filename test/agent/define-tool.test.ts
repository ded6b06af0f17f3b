import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  defineTool,
  EXTERNAL_TOOL,
  ExecuteToolStage,
  type ToolResultBlock,
  type ToolResultEvent,
  type ToolRunContext,
} from '../../src/agent/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';

const forecastInput = z.object({
  city: z.string().describe('City name'),
  days: z.number().int().min(1).default(3),
});

/** The issues zod reports for `value`, as the rule writes them: `<path>: <message>`, joined with `; `. */
function issuesOf(schema: z.ZodType, value: unknown, paths: readonly string[]): string {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('the schema accepted the value');
  return result.error.issues.map((issue, index) => `${paths[index]}: ${issue.message}`).join('; ');
}

/** Runs an agent whose model calls `tool` once with `input`; returns the result block of the call and the event Output handlers saw. */
async function callWith(
  tool: ReturnType<typeof defineTool>,
  input: unknown,
): Promise<{ block: ToolResultBlock; seen: ToolResultEvent | undefined }> {
  const registry = new MiddlewareRegistry();
  let seen: ToolResultEvent | undefined;
  registry.add(ExecuteToolStage.Output, (result) => {
    seen = result.value;
    return result;
  });
  const model = new ScriptedModel([toolUseTurn([{ name: tool.spec.name, input, toolUseId: 'c1' }]), textTurn('ok')]);
  const agent = new Agent({ model, tools: [tool], registry });
  await agent.invoke('go');
  return { block: agent.messages[2]?.content[0] as ToolResultBlock, seen };
}

describe('defineTool', () => {
  describe('the spec the model sees', () => {
    it('carries the JSON Schema of the input the model must send, frozen', () => {
      const tool = defineTool({
        name: 'lookup',
        description: 'Looks a city up.',
        input: z.object({ city: z.string().describe('City name') }),
        run: () => 'ok',
      });
      expect(tool.spec).toEqual({
        name: 'lookup',
        description: 'Looks a city up.',
        inputSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { city: { type: 'string', description: 'City name' } },
          required: ['city'],
        },
      });
      expect([
        Object.isFrozen(tool),
        Object.isFrozen(tool.spec),
        Object.isFrozen(tool.spec.inputSchema),
        Object.isFrozen(tool.spec.inputSchema.properties),
      ]).toEqual([true, true, true, true]);
    });

    it('describes the input side of the schema: a field with a default is optional', () => {
      const tool = defineTool({ name: 'forecast', description: 'Forecast.', input: forecastInput, run: () => 'ok' });
      expect(tool.spec.inputSchema.required).toEqual(['city']);
    });
  });

  describe('a call with input the schema accepts', () => {
    it('runs with the parsed input (defaults applied, transforms run) and the run context', async () => {
      const calls: unknown[] = [];
      const tool = defineTool({
        name: 'forecast',
        description: 'Forecast.',
        input: forecastInput.extend({ city: z.string().transform((city) => city.toUpperCase()) }),
        run: (input, context) => {
          calls.push([input, context.toolUse.toolUseId]);
          return { sunny: input.days };
        },
      });
      const { block } = await callWith(tool, { city: 'oslo' });
      expect([calls, block]).toEqual([
        [[{ city: 'OSLO', days: 3 }, 'c1']],
        { type: 'toolResult', toolUseId: 'c1', name: 'forecast', status: 'success', content: [{ type: 'json', json: { sunny: 3 } }] },
      ]);
    });

    it('awaits an async refinement before running', async () => {
      const tool = defineTool({
        name: 'check',
        description: 'Check.',
        input: z.string().refine(async (value) => value === 'yes'),
        run: (input) => `got ${input}`,
      });
      const [accepted, refused] = [await callWith(tool, 'yes'), await callWith(tool, 'no')];
      expect([accepted.block.status, accepted.block.content, refused.block.status]).toEqual([
        'success',
        [{ type: 'text', text: 'got yes' }],
        'error',
      ]);
    });
  });

  describe('a call with input the schema rejects', () => {
    it('never runs the tool and answers the model with every issue, path and message', async () => {
      const calls: unknown[] = [];
      const tool = defineTool({ name: 'forecast', description: 'Forecast.', input: forecastInput, run: (input) => void calls.push(input) });
      const { block } = await callWith(tool, { city: 5, days: 0 });
      const issues = issuesOf(forecastInput, { city: 5, days: 0 }, ['input.city', 'input.days']);
      expect([calls, block]).toEqual([
        [],
        {
          type: 'toolResult',
          toolUseId: 'c1',
          name: 'forecast',
          status: 'error',
          content: [
            {
              type: 'text',
              text: `Tool "forecast" failed: [ERR_TOOL_INPUT_INVALID] The input of tool "forecast" does not match its schema: ${issues}. Call the tool again with input that matches its input schema.`,
            },
          ],
        },
      ]);
    });

    it('names nested parts and array elements by their path, and the whole input as input', async () => {
      const route = z.object({ stops: z.array(z.object({ city: z.string() })) });
      const tool = defineTool({ name: 'route', description: 'Route.', input: route, run: () => 'ok' });
      const nested = await callWith(tool, { stops: [{ city: 'Oslo' }, { city: 7 }] });
      const whole = await callWith(tool, 'Oslo to Bergen');
      expect([nested.block.content, whole.block.content]).toEqual([
        [
          {
            type: 'text',
            text: `Tool "route" failed: [ERR_TOOL_INPUT_INVALID] The input of tool "route" does not match its schema: ${issuesOf(route, { stops: [{ city: 'Oslo' }, { city: 7 }] }, ['input.stops[1].city'])}. Call the tool again with input that matches its input schema.`,
          },
        ],
        [
          {
            type: 'text',
            text: `Tool "route" failed: [ERR_TOOL_INPUT_INVALID] The input of tool "route" does not match its schema: ${issuesOf(route, 'Oslo to Bergen', ['input'])}. Call the tool again with input that matches its input schema.`,
          },
        ],
      ]);
    });

    it('lets Output handlers see the MiddlewareError, the schema error as its cause', async () => {
      const tool = defineTool({ name: 'forecast', description: 'Forecast.', input: forecastInput, run: () => 'ok' });
      const { seen } = await callWith(tool, { days: 2 });
      const error = seen?.error as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.stage, error.phase, error.cause instanceof z.ZodError]).toEqual([
        true,
        'ERR_TOOL_INPUT_INVALID',
        'executeTool',
        'terminal',
        true,
      ]);
    });
  });

  describe('without run', () => {
    it('makes an external tool: the run halts with the call for the caller', async () => {
      const tool = defineTool({ name: 'locate', description: 'Where the user is.', input: z.object({ precise: z.boolean() }) });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'locate', input: { precise: true }, toolUseId: 'g1' }])]),
        tools: [tool],
      });
      const result = await agent.invoke('Where am I?');
      expect([Object.keys(tool), result.stopReason, result.interrupts.map((interrupt) => interrupt.name)]).toEqual([
        ['spec'],
        'interrupt',
        [EXTERNAL_TOOL],
      ]);
    });
  });

  describe('a definition it cannot use', () => {
    const input = z.object({});
    it.each([
      ['no definition', undefined, 'defineTool(): the definition must be'],
      ['an empty name', { name: '', description: 'd', input }, 'defineTool(): name must be a non-empty string'],
      [
        'a name that is not a string',
        { name: 42, description: 'd', input },
        'defineTool(): name must be a non-empty string, got number 42',
      ],
      ['no description', { name: 't', input }, 'defineTool({ name: "t" }): description must be a string'],
      ['no input', { name: 't', description: 'd' }, 'input must be a zod 4 schema'],
      [
        'an input without safeParseAsync()',
        { name: 't', description: 'd', input: { toJSONSchema: () => ({ type: 'object' }) } },
        'input must be a zod 4 schema',
      ],
      [
        'an input without toJSONSchema()',
        { name: 't', description: 'd', input: { safeParseAsync: () => Promise.resolve({ success: true, data: {} }) } },
        'input must be a zod 4 schema',
      ],
      ['a JSON Schema instead of a zod schema', { name: 't', description: 'd', input: { type: 'object' } }, 'input must be a zod 4 schema'],
      ['a run that is not a function', { name: 't', description: 'd', input, run: 'go' }, 'run must be a function'],
    ])('refuses %s with ERR_INVALID_OPTIONS', (_name, definition, says) => {
      let thrown: unknown;
      try {
        defineTool(definition as never);
      } catch (error) {
        thrown = error;
      }
      expect([
        MiddlewareError.isInstance(thrown),
        (thrown as MiddlewareError).code,
        (thrown as MiddlewareError).stage,
        (thrown as Error).message.includes(says),
      ]).toEqual([true, 'ERR_INVALID_OPTIONS', 'executeTool', true]);
    });

    it('refuses a schema zod cannot express as JSON Schema, with zod error as the cause', () => {
      let thrown: unknown;
      try {
        defineTool({ name: 'when', description: 'd', input: z.object({ at: z.date() }), run: () => 'ok' });
      } catch (error) {
        thrown = error;
      }
      expect([(thrown as MiddlewareError).code, (thrown as MiddlewareError).cause instanceof Error]).toEqual(['ERR_INVALID_OPTIONS', true]);
    });

    /** What defineTool throws for a schema whose toJSONSchema() gives `schema`: code, stage, message and cause. */
    function refusalOf(toJSONSchema: () => unknown): unknown {
      const schema = { toJSONSchema, safeParseAsync: (value: unknown) => Promise.resolve({ success: true as const, data: value }) };
      try {
        defineTool({ name: 'when', description: 'd', input: schema });
      } catch (error) {
        const { code, stage, message, cause } = error as MiddlewareError;
        return { code, stage, message, cause };
      }
      return 'defined';
    }

    it('refuses a schema whose conversion throws, saying what to do', () => {
      const thrown = new Error('Date cannot be represented in JSON Schema');
      expect(
        refusalOf(() => {
          throw thrown;
        }),
      ).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'executeTool',
        message:
          '[ERR_INVALID_OPTIONS] defineTool({ name: "when" }): zod cannot express the input schema as JSON Schema (Date cannot be represented in JSON Schema); describe the input with types JSON carries.',
        cause: thrown,
      });
    });

    it('refuses a schema whose JSON Schema cannot be copied, naming the part from inputSchema', () => {
      const thrown = new Error('no access');
      const jsonSchema = {
        type: 'object',
        properties: {
          get at(): never {
            throw thrown;
          },
        },
      };
      expect(refusalOf(() => jsonSchema)).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'executeTool',
        message:
          '[ERR_INVALID_OPTIONS] defineTool({ name: "when" }): input.toJSONSchema() must give plain data, but reading inputSchema.properties.at threw: no access.',
        cause: thrown,
      });
    });
  });

  describe('the run context', () => {
    it('is the context the terminal gives, with this the definition', async () => {
      let received: [unknown, ToolRunContext | undefined] = [undefined, undefined];
      const definition = {
        name: 'ctx',
        description: 'd',
        input: z.object({}),
        run(this: unknown, _input: object, context: ToolRunContext) {
          received = [this, context];
          return 'ok';
        },
      };
      await callWith(defineTool(definition), {});
      expect([received[0], received[1]?.toolUse]).toEqual([definition, { type: 'toolUse', toolUseId: 'c1', name: 'ctx', input: {} }]);
    });
  });
});
