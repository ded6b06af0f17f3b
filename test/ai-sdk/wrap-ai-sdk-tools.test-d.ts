import { tool, type ToolSet } from 'ai';
import { tool as toolOfAi7, type ToolSet as ToolSetOfAi7 } from 'ai-v7';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareRegistry } from '../../src/core/index';
import { wrapAiSdkTools } from '../../src/ai-sdk/index';

describe('wrapAiSdkTools', () => {
  it("returns a tool set of ai 6 with its own type, so streamText infers each tool's input and output", () => {
    const tools = { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: ({ city }) => ({ city }) }) };
    expectTypeOf(wrapAiSdkTools(new MiddlewareRegistry(), tools)).toEqualTypeOf<typeof tools>();
    expectTypeOf(wrapAiSdkTools(new MiddlewareRegistry(), tools)).toExtend<ToolSet>();
  });

  it('takes a tool set of ai 7 the same way', () => {
    const tools = { weather: toolOfAi7({ inputSchema: z.object({ city: z.string() }), execute: ({ city }) => ({ city }) }) };
    expectTypeOf(wrapAiSdkTools(new MiddlewareRegistry(), tools)).toEqualTypeOf<typeof tools>();
    expectTypeOf(wrapAiSdkTools(new MiddlewareRegistry(), tools)).toExtend<ToolSetOfAi7>();
  });

  it('refuses a tool whose execute is not a function', () => {
    // @ts-expect-error: execute must be a function
    wrapAiSdkTools(new MiddlewareRegistry(), { weather: { execute: 1 } });
  });
});
