import type * as restate from '@restatedev/restate-sdk';
import { describe, expectTypeOf, it } from 'vitest';
import type { RestateContext, RestateWorkflowContext, RestateWorkflowSharedContext } from '../../src/durable-restate/index';

describe('RestateContext', () => {
  it("is fitted by the SDK's contexts of services, objects and workflows as they are", () => {
    expectTypeOf<restate.Context>().toExtend<RestateContext>();
    expectTypeOf<restate.ObjectContext>().toExtend<RestateContext>();
    expectTypeOf<restate.WorkflowContext>().toExtend<RestateContext>();
  });
});

describe('RestateWorkflowContext', () => {
  it("is fitted by the SDK's workflow context, and a service's context lacks its durable promises", () => {
    expectTypeOf<restate.WorkflowContext>().toExtend<RestateWorkflowContext>();
    expectTypeOf<restate.Context>().not.toExtend<RestateWorkflowContext>();
  });
});

describe('RestateWorkflowSharedContext', () => {
  it("is fitted by the SDK's shared workflow context", () => {
    expectTypeOf<restate.WorkflowSharedContext>().toExtend<RestateWorkflowSharedContext>();
  });
});
