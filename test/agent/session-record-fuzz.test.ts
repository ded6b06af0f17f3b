/**
 * Generated records for `decodeSessionRecord` (MW-256): whatever a file, a
 * row or a hash holds, the decoding either gives a frozen record of plain
 * data whose keys (`__proto__` included) are those of the input, or refuses
 * it with `ERR_SESSION_RECORD`; nothing else escapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSessionRecord } from '../../src/agent/session/session-revisions';
import { anyValue, escaped, foreignPrototypes, jsonObject, jsonValue, key } from './untrusted-values';

const revision = fc.string({ minLength: 1, maxLength: 8 });

describe('decodeSessionRecord', () => {
  describe('given a revision and a JSON object, as an object or as JSON text', () => {
    it('returns a frozen copy whose own keys and values are those of the input', () => {
      fc.assert(
        fc.property(revision, jsonObject, fc.boolean(), (given, snapshot, asText) => {
          const record = decodeSessionRecord({ revision: given, snapshot: asText ? JSON.stringify(snapshot) : snapshot }, 'Store', 's');
          expect([
            record,
            JSON.stringify(record.snapshot) === JSON.stringify(snapshot),
            Object.isFrozen(record) && Object.isFrozen(record.snapshot),
            foreignPrototypes(record),
          ]).toEqual([{ revision: given, snapshot }, true, true, []]);
        }),
      );
    });
  });

  describe('given anything', () => {
    it('returns a record or throws ERR_SESSION_RECORD, and leaves Object.prototype alone', () => {
      const anyRecord = fc.oneof(
        anyValue,
        jsonValue,
        fc.dictionary(fc.oneof(key, fc.constantFrom('revision', 'snapshot')), fc.oneof(jsonValue, fc.string(), anyValue), {
          maxKeys: 4,
          noNullPrototype: true,
        }),
        fc.record({ revision: fc.oneof(revision, jsonValue), snapshot: fc.oneof(jsonValue, fc.string(), jsonObject) }),
      );
      fc.assert(
        fc.property(anyRecord, (value) => {
          const outcome = escaped(() => decodeSessionRecord(value, 'Store', 's'));
          expect([['none', 'ERR_SESSION_RECORD'].includes(outcome as string), Object.keys(Object.prototype)]).toEqual([true, []]);
        }),
      );
    });
  });
});
