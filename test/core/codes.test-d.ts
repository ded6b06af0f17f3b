import { describe, expectTypeOf, it } from 'vitest';
import type { AGENT_ERROR_CODES } from '../../src/agent/errors';
import type { AI_SDK_ERROR_CODES } from '../../src/ai-sdk/errors';
import type { CORE_ERROR_CODES, CoreErrorCode } from '../../src/core/errors';
import type { DURABLE_ERROR_CODES } from '../../src/durable/errors';
import type { MiddlewareError, MiddlewareErrorCode } from '../../src/core/index';
import type { MCP_ERROR_CODES } from '../../src/mcp/errors';
import type { MIDDLEWARE_ERROR_CODES } from '../../src/middleware/errors';
import type { TESTING_ERROR_CODES } from '../../src/testing/errors';

describe('MiddlewareErrorCode', () => {
  it('is the codes of every table of a program that imports every subsystem', () => {
    type Tables = typeof CORE_ERROR_CODES &
      typeof MIDDLEWARE_ERROR_CODES &
      typeof AGENT_ERROR_CODES &
      typeof TESTING_ERROR_CODES &
      typeof DURABLE_ERROR_CODES &
      typeof AI_SDK_ERROR_CODES &
      typeof MCP_ERROR_CODES;
    expectTypeOf<MiddlewareErrorCode>().toEqualTypeOf<keyof Tables>();
    expectTypeOf<MiddlewareError['code']>().toEqualTypeOf<keyof Tables>();
  });

  it("keeps the core's own codes apart from the subsystems' codes", () => {
    expectTypeOf<'ERR_NO_RESULT'>().toExtend<CoreErrorCode>();
    // @ts-expect-error: an agent code is not a code of the core's table
    expectTypeOf<'ERR_AGENT_BUSY'>().toExtend<CoreErrorCode>();
  });

  it('lets a program that imports the agent kit compare a code with an agent code', () => {
    const check = (error: MiddlewareError): boolean => error.code === 'ERR_AGENT_BUSY';
    expectTypeOf(check).returns.toEqualTypeOf<boolean>();
  });
});
