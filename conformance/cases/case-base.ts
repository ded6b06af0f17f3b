/**
 * What every case format shares: JSON values, rule ids, and the fields every
 * case file has whatever its kind (`caseBase`), which the runner checks
 * before it reads a case as its kind's format.
 *
 * @packageDocumentation
 */
import { z } from 'zod';

/** Any JSON value (an event, a context, a result, a state). */
export const json = z.json();

/** A JSON value. */
export type Json = z.infer<typeof json>;

/** Rule ids as they appear in `spec/SPEC.md`. */
export const ruleId = z.string().regex(/^MW-\d{3}$/);

/** The fields every case has, whatever its kind. */
export const caseBase = z.looseObject({
  id: z.string().min(1),
  description: z.string().min(1),
  rules: z.array(ruleId).min(1),
  kind: z.string().min(1),
});
