/**
 * zod, loaded the first time a tool of the agent middleware checks its
 * input. Loading zod adds its own properties to the global object, so the
 * agent kit does not load it with itself (MW-204): an agent that never calls
 * such a tool never loads it.
 */
type Zod = typeof import('zod');

let loading: Promise<Zod> | undefined;

/** The zod module, imported once. */
export function loadZod(): Promise<Zod> {
  loading ??= import('zod');
  return loading;
}

/**
 * Checks `value` against the schema `build` makes with zod; throws an Error
 * whose message is `problem` followed by zod's account of what does not fit.
 */
export async function parseWithZod<TValue>(
  value: unknown,
  build: (z: Zod['z']) => { safeParse(value: unknown): { success: true; data: TValue } | { success: false; error: unknown } },
  problem: string,
): Promise<TValue> {
  const { z } = await loadZod();
  const parsed = build(z).safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(`${problem}: ${z.prettifyError(parsed.error as Parameters<Zod['z']['prettifyError']>[0]).replace(/\n/g, ' ')}`);
}
