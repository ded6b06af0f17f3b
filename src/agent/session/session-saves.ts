/**
 * How a run of the reference agent waits on its session store (MW-137): a
 * save the run needs before it goes on is waited for only until the run
 * signal aborts, and the save that puts the session back after a run that did
 * not commit is not waited for at all, so a store that never answers holds
 * no run, cancelled or failed.
 *
 * @packageDocumentation
 */
import { AbortRace } from '../tools/abort-race';
import { thrownText } from '../values/value-walk';

/** Waits for a save, or throws the signal's reason as soon as it aborts (a late outcome of the save is ignored). */
export async function saveRacing(saving: Promise<void>, signal: AbortSignal): Promise<void> {
  const race = new AbortRace(signal);
  try {
    await race.wait(saving);
  } finally {
    race.dispose();
  }
}

/**
 * Handles the save that puts session `id` back after a run that did not
 * commit: the run settles without waiting for it, so a failure, whenever it
 * comes, can reach no caller and goes to the standard warning channel.
 */
export function saveBack(saving: Promise<void>, id: string): void {
  saving.then(undefined, (error: unknown) => {
    console.warn(
      `[staged-middleware] Agent: saving session "${id}" back to the agent's state after a run that did not commit failed: ${thrownText(error)}. The session may hold turns of that run until the agent saves again; a store that handles its own failures catches them in save().`,
    );
  });
}
