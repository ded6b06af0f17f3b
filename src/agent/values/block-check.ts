/**
 * Checking content blocks field by field (MW-100), for messages that come
 * back from storage (a snapshot, MW-136): a block the agent would send the
 * model must be whole when it is restored, not fail later at the provider.
 */
import { describeValue } from '../../util/describe-value';
import { invalid } from '../errors';
import type { Message } from '../types/message';

/** A field's check, given its value and whether the block has it, and what it expects, in words. */
type FieldCheck = readonly [check: (value: unknown, present: boolean) => boolean, expected: string];

/** The checks of a block type's fields, by field name. */
type FieldChecks = Readonly<Record<string, FieldCheck>>;

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

/** The fields of the block types the kit reads; a block of another type is kept as it is (MW-187 drops it from requests). */
function blockFields(type: string): FieldChecks | undefined {
  switch (type) {
    case 'text':
      return { text: [isString, 'a string'] };
    case 'reasoning':
      return { text: [isString, 'a string'], signature: [isOptionalString, 'a string when present'] };
    case 'toolUse':
      return { toolUseId: [isString, 'a string'], name: [isString, 'a string'], input: [isPresent, 'present (any JSON value)'] };
    case 'toolResult':
      return {
        toolUseId: [isString, 'a string'],
        name: [isOptionalString, 'a string when present'],
        status: [isStatus, "'success' or 'error'"],
      };
    case 'cachePoint':
      return { cacheType: [isString, 'a string'] };
  }
  return undefined;
}

/** The blocks a tool result's `content` holds. */
function resultContentFields(type: string): FieldChecks | undefined {
  switch (type) {
    case 'text':
      return { text: [isString, 'a string'] };
    case 'json':
      return { json: [isPresent, 'present (any JSON value)'] };
  }
  return undefined;
}

/** How a tool result of a halted turn must be (its type is checked first): a `name` too, which every recorded result has (MW-183). */
function recordedResultFields(): FieldChecks {
  return { ...blockFields('toolResult'), name: [isString, 'a string'] };
}

/**
 * Checks every block of every message: an object with a string `type`, and
 * for the types of MW-100 each field as that rule gives it (a tool result's
 * `content` an array of `text` and `json` blocks).
 *
 * @param pathOf - The path of the message at an index (`options.snapshot.messages[2]`).
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the first field at fault.
 */
export function checkBlocks(messages: readonly Message[], pathOf: (index: number) => string): void {
  messages.forEach((message, index) => {
    message.content.forEach((block, blockIndex) => {
      checkBlock(block, `${pathOf(index)}.content[${blockIndex}]`, blockFields);
    });
  });
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

/** Checks a block's fields as `fieldsOf` gives them for its type; whether its type has fields to check. */
function checkBlock(block: unknown, path: string, fieldsOf: FieldsOf, only?: string): boolean {
  if (typeof block !== 'object' || block === null || Array.isArray(block))
    throw invalid(`${path} must be a content block { type, ... }, got ${describeValue(block)}`);
  const record = block as Record<string, unknown>;
  const { type } = record;
  if (only !== undefined && type !== only) throw invalid(`${path}.type must be '${only}', got ${describeValue(type)}`);
  if (typeof type !== 'string') throw invalid(`${path}.type must be a string, got ${describeValue(type)}`);
  const fields = fieldsOf(type);
  if (fields === undefined) return false;
  for (const [field, [check, expected]] of Object.entries(fields)) {
    const present = Object.hasOwn(record, field);
    const value = present ? record[field] : undefined;
    if (!check(value, present)) throw invalid(`${path}.${field} of a ${type} block must be ${expected}, got ${describeValue(value)}`);
  }
  if (type === 'toolResult') checkResultContent(record.content, `${path}.content`);
  return true;
}

function checkResultContent(content: unknown, path: string): void {
  if (!Array.isArray(content))
    throw invalid(`${path} of a toolResult block must be an array of text and json blocks, got ${describeValue(content)}`);
  content.forEach((block: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!checkBlock(block, at, resultContentFields))
      throw invalid(
        `${at}.type of a tool result's content must be 'text' or 'json', got ${describeValue((block as { type: string }).type)}`,
      );
  });
}
