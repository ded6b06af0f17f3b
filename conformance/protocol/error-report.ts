/**
 * An error as a port reports it, in every reply that can carry one; the
 * runner picks the fields a case compares.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { json } from '../cases/case-base';

/** An error as a port reports it; the runner picks the fields a case compares. */
export const errorReport = z
  .strictObject({
    code: z
      .string()
      .optional()
      .describe("The error's code when it is an error of the library (recognised by its isInstance); absent for a user error"),
    genuine: z.boolean().optional().describe('With code: its name is also "MiddlewareError"'),
    message: z.string().describe("The error's message (String(value) for a thrown value without one)"),
    thrownByCase: z
      .boolean()
      .describe('It is the very object a script step of the case threw (or the port threw for the case: "consumer stop", "setup failed")'),
    stage: z.string().nullable().describe("The error's stage field; null when it has none"),
    phase: z.string().nullable().describe("The error's phase field; null when it has none"),
    handler: z.string().nullable().describe("The error's handler field; null when it has none"),
    cause: json
      .optional()
      .describe(
        'The cause, absent when there is none: a string (or other JSON value) as it is, {"issues": [messages]} for a schema error, {"code"} for a library error, else {"message"}',
      ),
  })
  .describe('An error the library raised or user code threw');

/** An error as a port reports it. */
export type ErrorReport = z.infer<typeof errorReport>;
