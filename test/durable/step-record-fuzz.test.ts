/**
 * Reading step records back from a journal under generated input (MW-246,
 * MW-139): whatever a journal gives back, the read either returns a frozen
 * plain-data record of the step asked for or fails with ERR_JOURNAL_CORRUPT;
 * `__proto__` stays an ordinary own key of what is replayed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { readStepRecord, replayEvent, STEP_FORMAT } from '../../src/durable/step-record';

/** A recorded error, well formed. */
const recordedError = fc.oneof(
  fc.record({ kind: fc.constant('error'), name: fc.string(), message: fc.string() }),
  fc.record({ kind: fc.constant('error'), name: fc.string(), message: fc.string(), code: fc.string() }),
  fc.record({ kind: fc.constant('value'), value: fc.jsonValue() }),
);

/** A recorded event, well formed. */
const recordedEvent = fc.oneof(
  fc.record({ event: fc.dictionary(fc.string(), fc.jsonValue()).map((fields) => ({ ...fields, type: 'textDelta' })) }),
  fc.record({ event: fc.constant({ type: 'toolResult' }), error: recordedError }),
);

/** A step record of the step `s`, well formed. */
const record = fc.record({
  format: fc.constant(STEP_FORMAT),
  step: fc.constant('s'),
  events: fc.array(recordedEvent, { maxLength: 4 }),
  outcome: fc.oneof(
    fc.constant({ kind: 'completed' }),
    fc.record({ kind: fc.constant('threw'), error: recordedError }),
    fc.record({
      kind: fc.constant('interrupted'),
      interrupts: fc.array(fc.record({ id: fc.string(), name: fc.string(), reason: fc.jsonValue() }), { minLength: 1, maxLength: 2 }),
    }),
  ),
});

/** Deeply frozen: every array and object inside. */
function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

describe('readStepRecord', () => {
  describe('a well-formed record, as JSON gives it back', () => {
    it('returns an equal, deeply frozen copy', () => {
      fc.assert(
        fc.property(record, (written) => {
          const read = readStepRecord(JSON.parse(JSON.stringify(written)), 'r', 's');
          expect(read).toEqual(JSON.parse(JSON.stringify(written)));
          expect(deeplyFrozen(read)).toBe(true);
        }),
      );
    });
  });

  describe('anything a journal may give back', () => {
    it('returns a record of the step or throws ERR_JOURNAL_CORRUPT, never anything else', () => {
      const anything = fc.oneof(
        fc.anything(),
        record.map((written) => ({ ...written, step: 'other' })),
        fc.jsonValue(),
        record,
      );
      fc.assert(
        fc.property(anything, (value) => {
          try {
            const read = readStepRecord(value, 'r', 's');
            expect([read.format, read.step]).toEqual([STEP_FORMAT, 's']);
          } catch (error) {
            expect([MiddlewareError.isInstance(error), (error as MiddlewareError).code]).toEqual([true, 'ERR_JOURNAL_CORRUPT']);
          }
        }),
      );
    });

    it('names the first part that is wrong', () => {
      const broken = { format: STEP_FORMAT, step: 's', events: [{ event: { type: 1 } }], outcome: { kind: 'completed' } };
      expect(() => readStepRecord(broken, 'run-3', 's')).toThrow(
        expect.objectContaining({
          code: 'ERR_JOURNAL_CORRUPT',
          handler: 'durableSteps',
          message: expect.stringContaining(
            'Durable run "run-3": the journal\'s record of step "s" is not what the durable layer records (events[0] must hold an event object with a string type',
          ),
        }),
      );
    });
  });

  describe('a record whose event has a "__proto__" key', () => {
    it('replays the key as an ordinary own key, lending the event no prototype', () => {
      const text = `{"format":"${STEP_FORMAT}","step":"s","events":[{"event":{"type":"textDelta","__proto__":{"isAdmin":true}},"error":{"kind":"value","value":1}}],"outcome":{"kind":"completed"}}`;
      const read = readStepRecord(JSON.parse(text), 'r', 's');
      const event = replayEvent(read.events[0] as never) as Record<string, unknown>;
      expect([Object.keys(event), Object.getPrototypeOf(event) === Object.prototype, event.isAdmin]).toEqual([
        ['type', '__proto__', 'error'],
        true,
        undefined,
      ]);
    });
  });
});
