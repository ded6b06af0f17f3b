import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConstraintIndex, sortByConstraints } from '../../src/core/order';
import { createRegistration, type StoredRegistration } from '../../src/core/registration';
import { ModelStage as Stage, OtherStage as Other } from '../fixtures';

const handler = async function* passThrough(): AsyncGenerator<string> {
  yield 'x';
};

/** A registry's view for the index: registrations by id, kept in step with the index. */
function holder() {
  const index = new ConstraintIndex();
  const ids = new Map<string, StoredRegistration>();
  return {
    index,
    store(registration: StoredRegistration): StoredRegistration {
      index.add(registration);
      if (registration.id !== undefined) ids.set(registration.id, registration);
      return registration;
    },
    drop(registration: StoredRegistration): void {
      index.remove(registration);
      if (registration.id !== undefined && ids.get(registration.id) === registration) ids.delete(registration.id);
    },
    closes(registration: StoredRegistration, replaced?: StoredRegistration): boolean {
      return index.closesCycle(registration, replaced, ids);
    },
  };
}

function wrap(options: Parameters<typeof createRegistration>[2], target: unknown = Stage.Wrap): StoredRegistration {
  return createRegistration(target, handler, options, undefined, 'test');
}

describe('ConstraintIndex', () => {
  describe('closesCycle', () => {
    it('finds a cycle through the new registration', () => {
      const registry = holder();
      registry.store(wrap({ id: 'a', before: ['b'] }));
      registry.store(wrap({ id: 'b', before: ['c'] }));
      expect([registry.closes(wrap({ id: 'c', before: ['a'] })), registry.closes(wrap({ id: 'c', after: ['a'] }))]).toEqual([true, false]);
    });

    it('finds a cycle closed by the new registration naming itself through others', () => {
      const registry = holder();
      registry.store(wrap({ id: 'b' }));
      expect(registry.closes(wrap({ before: ['b'], after: ['b'] }))).toBe(true);
    });

    it('ignores constraints between registrations of another stage or phase', () => {
      const registry = holder();
      registry.store(wrap({ id: 'a', before: ['b'] }, Other.Wrap));
      registry.store(wrap({ id: 'x', before: ['b'] }, Stage.Input));
      expect(registry.closes(wrap({ id: 'b', before: ['a', 'x'] }))).toBe(false);
    });

    it('leaves the replaced registration out: reversing its constraints is no cycle', () => {
      const registry = holder();
      registry.store(wrap({ id: 'c' }));
      registry.store(wrap({ id: 'd' }));
      const old = registry.store(wrap({ id: 'b', after: ['d'], before: ['c'] }));
      expect(registry.closes(wrap({ id: 'b', after: ['c'], before: ['d'], replace: true }), old)).toBe(false);
    });

    it('follows no path through a registration of another stage that names a peer in after', () => {
      const registry = holder();
      registry.store(wrap({ id: 'a' }));
      registry.store(wrap({ id: 'p' }));
      registry.store(wrap({ id: 'elsewhere', after: ['a'], before: ['s'] }, Other.Wrap));
      expect(registry.closes(wrap({ id: 's', before: ['a'], after: ['p'] }))).toBe(false);
    });

    it('forgets a removed registration', () => {
      const registry = holder();
      registry.store(wrap({ id: 'a' }));
      registry.store(wrap({ id: 'z' }));
      registry.drop(registry.store(wrap({ id: 'b', after: ['a'] })));
      expect(registry.closes(wrap({ id: 'n', before: ['a'], after: ['b', 'z'] }))).toBe(false);
    });

    it('agrees with sorting the whole phase, for generated registrations', () => {
      const ids = ['a', 'b', 'c', 'd', 'e'];
      const options = fc.record({
        id: fc.option(fc.constantFrom(...ids), { nil: undefined }),
        before: fc.subarray(ids, { maxLength: 2 }),
        after: fc.subarray(ids, { maxLength: 2 }),
        input: fc.boolean(),
      });
      fc.assert(
        fc.property(fc.array(options, { maxLength: 12 }), fc.array(fc.nat(11), { maxLength: 4 }), (added, removed) => {
          const registry = holder();
          const held: StoredRegistration[] = [];
          for (const [position, { input, ...given }] of added.entries()) {
            const { id, ...constraints } = given;
            const candidate = wrap(id === undefined ? constraints : { id, ...constraints }, input ? Stage.Input : Stage.Wrap);
            const replaced = given.id === undefined ? undefined : held.find((other) => other.id === given.id);
            const peers = [...held.filter((other) => other !== replaced && other.phase === candidate.phase), candidate];
            let cycle = false;
            try {
              sortByConstraints(peers, { stage: 'model', phase: candidate.phase });
            } catch {
              cycle = true;
            }
            expect(registry.closes(candidate, replaced)).toBe(cycle);
            if (cycle) continue;
            if (replaced !== undefined) {
              registry.drop(replaced);
              held.splice(held.indexOf(replaced), 1);
            }
            held.push(registry.store(candidate));
            if (removed.includes(position) && held.length > 0) registry.drop(held.shift() as StoredRegistration);
          }
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('remove', () => {
    it('releases every entry, also for an id a registration names twice', () => {
      const registry = holder();
      const held = registry.store(wrap({ id: 'b', before: ['a', 'a'], after: ['c'] }));
      registry.drop(held);
      const { namedBefore, namedAfter } = registry.index as unknown as Record<'namedBefore' | 'namedAfter', Map<string, unknown>>;
      expect([namedBefore.size, namedAfter.size]).toEqual([0, 0]);
    });
  });
});
