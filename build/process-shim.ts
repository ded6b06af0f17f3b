/**
 * What the bundled immer reads as `process` (see `immer-without-process.ts`): the
 * runtime's own `process.env` where there is one (Node.js, so `NODE_ENV`
 * still selects immer's checks), and an empty environment elsewhere, without
 * defining a global that other code could mistake for Node.js.
 */
export const process = {
  get env(): Record<string, string | undefined> {
    const host = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
    return host?.env ?? {};
  },
};
