/**
 * What the reliability scenarios share: JSON events, draining an invoke,
 * waiting macrotask turns.
 */
import type { Json } from '../cases/case-base';
import { errorText } from '../library/script-environment';

/** An invoke of JSON events. */
export type Events = AsyncGenerator<Json, void, undefined>;

/** The observation of a scenario, keyed like its `expect`. */
export type Observed = Json;

/** A case's parameters, read by name. */
export type Parameters = Readonly<Record<string, unknown>>;

/** True for a result event: an object with `"result": true`. */
export function isResult(event: Json): boolean {
  return typeof event === 'object' && event !== null && (event as Record<string, unknown>).result === true;
}

/** Waits `count` macrotask turns. */
export async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/** Pulls every event; an error is reported by its code or message. */
export async function drain(events: AsyncIterable<Json>): Promise<{ events: Json[]; error?: string }> {
  const seen: Json[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { events: seen };
  } catch (error) {
    return { events: seen, error: errorText(error) };
  }
}
