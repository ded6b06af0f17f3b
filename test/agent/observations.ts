/** The scripted observations of the tests that pin a relay's passages (what a relay's `observe` does with an event). */
import fc from 'fast-check';

/** What an observation does with one event: pass it on, replace it, throw, or answer with a promise that fulfils or rejects. */
export type Observation = 'pass' | 'replace' | 'throw' | 'wait' | 'waitRejects';

/** Observations, mostly passing. */
export const observations: fc.Arbitrary<Observation[]> = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: fc.constant<Observation>('pass') },
    { weight: 1, arbitrary: fc.constantFrom<Observation>('replace', 'throw', 'wait', 'waitRejects') },
  ),
  { maxLength: 6 },
);

/** What `observation` makes of `event`; `who` names the observer in its failures. */
export function observeAs(observation: Observation, event: string, who: string): string | Promise<string> {
  switch (observation) {
    case 'pass':
      return event;
    case 'replace':
      return `${event}'`;
    case 'throw':
      throw new Error(`${who} failed observing ${event}`);
    case 'wait':
      return Promise.resolve(`${event} after a wait`);
    case 'waitRejects':
      return Promise.reject(new Error(`${who} failed waiting on ${event}`));
  }
}
