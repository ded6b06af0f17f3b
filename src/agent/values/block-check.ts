/**
 * Checking content blocks field by field (MW-100), for messages that come
 * back from storage (a snapshot, MW-136): a block the agent would send the
 * model must be whole when it is restored, not fail later at the provider.
 */
import { describeValue } from '../../util/describe-value';
import { invalid } from '../errors';
import type { Message } from '../types/message';
import { isRecord } from './value-shapes';

/** A field's check, given its value and whether the block has it, and what it expects, in words. */
type FieldCheck = readonly [field: string, check: (value: unknown, present: boolean) => boolean, expected: string];

/** The checks of a block type's fields, in the order they are checked. */
type FieldChecks = readonly FieldCheck[];

/** The checks of a block type's fields, or undefined for a type whose block is kept as it is. */
type FieldsOf = (type: string) => FieldChecks | undefined;

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isPresent(_value: unknown, present: boolean): boolean {
  return present;
}

function isOptionalString(value: unknown, present: boolean): boolean {
  return !present || typeof value === 'string';
}

function isStatus(value: unknown): boolean {
  return value === 'success' || value === 'error';
}

// Made once: every message checked reads them.
const TEXT_FIELDS: FieldChecks = [['text', isString, 'a string']];
const REASONING_FIELDS: FieldChecks = [
  ['text', isString, 'a string'],
  ['signature', isOptionalString, 'a string when present'],
];
const TOOL_USE_FIELDS: FieldChecks = [
  ['toolUseId', isString, 'a string'],
  ['name', isString, 'a string'],
  ['input', isPresent, 'present (any JSON value)'],
];
const TOOL_RESULT_FIELDS: FieldChecks = [
  ['toolUseId', isString, 'a string'],
  ['name', isOptionalString, 'a string when present'],
  ['status', isStatus, "'success' or 'error'"],
];
const CACHE_POINT_FIELDS: FieldChecks = [['cacheType', isString, 'a string']];
const JSON_FIELDS: FieldChecks = [['json', isPresent, 'present (any JSON value)']];
/** How a tool result of a halted turn must be (its type is checked first): a `name` too, which every recorded result has (MW-183). */
const RECORDED_RESULT_FIELDS: FieldChecks = [
  ['toolUseId', isString, 'a string'],
  ['name', isString, 'a string'],
  ['status', isStatus, "'success' or 'error'"],
];

/** The fields of the block types the kit reads; a block of another type is kept as it is (MW-187 drops it from requests). */
function blockFields(type: string): FieldChecks | undefined {
  switch (type) {
    case 'text':
      return TEXT_FIELDS;
    case 'reasoning':
      return REASONING_FIELDS;
    case 'toolUse':
      return TOOL_USE_FIELDS;
    case 'toolResult':
      return TOOL_RESULT_FIELDS;
    case 'cachePoint':
      return CACHE_POINT_FIELDS;
  }
  return undefined;
}

/** The blocks a tool result's `content` holds. */
function resultContentFields(type: string): FieldChecks | undefined {
  switch (type) {
    case 'text':
      return TEXT_FIELDS;
    case 'json':
      return JSON_FIELDS;
  }
  return undefined;
}

function recordedResultFields(): FieldChecks {
  return RECORDED_RESULT_FIELDS;
}

/**
 * Whether reading `key` of a frozen object gives the same answer forever: the key is absent (a frozen object gets
 * no new keys) or a data property. A getter stays a getter when its object is frozen, and may answer differently
 * on every read, so a verdict over a value read through one cannot be kept (MW-144).
 */
export function isFixed(record: object, key: string | number): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(record, key);
  return descriptor === undefined || 'value' in descriptor;
}

/**
 * Checks every block of one message: each an object with a string `type`, and for the types of MW-100 each field
 * as that rule gives it (a tool result's `content` an array of `text` and `json` blocks). Answers whether every
 * part the check read is fixed (the content array and each block frozen, each part read a data property:
 * {@link isFixed}), so that the message passes the same check whenever it is checked again.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the first field at fault.
 */
export function checkMessageBlocks(message: Message, index: number, pathOf: (index: number) => string): boolean {
  const { content } = message;
  let fixed = Object.isFrozen(content);
  content.forEach((block, blockIndex) => {
    if (!checkBlock(block, `${pathOf(index)}.content[${blockIndex}]`, blockFields)) fixed = false;
    else if (fixed && !isFixed(content, blockIndex)) fixed = false;
  });
  return fixed;
}

/**
 * Checks a tool result a halted turn recorded: a `toolResult` block with its
 * `toolUseId`, `name`, `status` and `content`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the first field at fault.
 */
export function checkRecordedResult(block: unknown, path: string): void {
  checkBlock(block, path, recordedResultFields, 'toolResult');
}

/** Checks a block's fields as `fieldsOf` gives them for its type; whether every part it read is fixed ({@link isFixed}). */
function checkBlock(block: unknown, path: string, fieldsOf: FieldsOf, only?: string): boolean {
  if (!isRecord(block)) throw invalid(`${path} must be a content block { type, ... }, got ${describeValue(block)}`);
  const record = block;
  const { type } = record;
  if (only !== undefined && type !== only) throw invalid(`${path}.type must be '${only}', got ${describeValue(type)}`);
  if (typeof type !== 'string') throw invalid(`${path}.type must be a string, got ${describeValue(type)}`);
  let fixed = Object.isFrozen(record) && isFixed(record, 'type');
  const fields = fieldsOf(type);
  if (fields === undefined) return fixed;
  for (const [field, check, expected] of fields) {
    const present = Object.hasOwn(record, field);
    const value = present ? record[field] : undefined;
    if (!check(value, present)) throw invalid(`${path}.${field} of a ${type} block must be ${expected}, got ${describeValue(value)}`);
    if (fixed && !isFixed(record, field)) fixed = false;
  }
  if (type === 'toolResult' && !checkResultContent(record.content, `${path}.content`)) fixed = false;
  if (type === 'toolResult' && fixed && !isFixed(record, 'content')) fixed = false;
  return fixed;
}

/** Checks a tool result's content; whether every part it read is fixed. */
function checkResultContent(content: unknown, path: string): boolean {
  if (!Array.isArray(content))
    throw invalid(`${path} of a toolResult block must be an array of text and json blocks, got ${describeValue(content)}`);
  let fixed = Object.isFrozen(content);
  content.forEach((block: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!checkBlock(block, at, resultContentFields)) fixed = false;
    else if (fixed && !isFixed(content, index)) fixed = false;
    if (resultContentFields((block as { type: string }).type) === undefined)
      throw invalid(
        `${at}.type of a tool result's content must be 'text' or 'json', got ${describeValue((block as { type: string }).type)}`,
      );
  });
  return fixed;
}
