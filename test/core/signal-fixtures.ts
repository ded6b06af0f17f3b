/** What the tests of the invoke's signals share: counting a signal's abort listeners, and collecting garbage. */
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How many abort listeners `signal` has. */
export const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

/** Forces garbage collection and lets finalisation callbacks run. */
export async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let attempt = 0; attempt < 5; attempt++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
