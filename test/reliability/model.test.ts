/**
 * Model-based property test: random registries, terminals and consumers run
 * through the library and through the reference interpreter must agree on
 * every add outcome, warning, event, trace label (handler entries, finallys,
 * deliveries), state write and the ending.
 *
 * Replay a failure with PROPERTY_SEED=<seed> (and PROPERTY_PATH=<path> for the
 * shrunk case); run more cases with PROPERTY_RUNS=<n>.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scenario } from './arbitraries';
import { runLibrary, runReference } from './harness';
import { UserError } from './scenario';

const seed = Number(process.env.PROPERTY_SEED ?? 20261122);
const numRuns = Number(process.env.PROPERTY_RUNS ?? 2500);
const path = process.env.PROPERTY_PATH;

describe('MiddlewareRegistry.invoke', () => {
  describe('against the reference interpreter', () => {
    it('agrees on adds, warnings, events, trace, state writes and ending for generated scenarios', async () => {
      const details = await fc.check(
        fc.asyncProperty(scenario, async (generated) => {
          const library = await runLibrary(generated);
          const reference = await runReference(generated);
          expect(library.observed).toEqual(reference.observed);
          // A user error reaches the consumer as the very object user code threw.
          if (library.error instanceof UserError) expect(library.environment.thrown).toContain(library.error);
        }),
        { seed, numRuns, ...(path === undefined ? {} : { path }) },
      );
      if (details.failed) {
        const replay = `PROPERTY_SEED=${details.seed} PROPERTY_PATH=${details.counterexamplePath ?? ''} npx vitest run test/reliability/model.test.ts`;
        throw new Error(
          `The library and the reference disagree after ${details.numRuns} cases.\nReplay: ${replay}\nScenario: ${fc.stringify(details.counterexample)}\n${String((details.errorInstance as Error | undefined)?.message ?? details.errorInstance)}`,
        );
      }
      expect({ failed: details.failed, ran: details.numRuns }).toEqual({ failed: false, ran: numRuns });
    }, 600_000);
  });
});
