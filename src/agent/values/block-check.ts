/**
 * Checking content blocks field by field (MW-100), for messages that come
 * back from storage (a snapshot, MW-136): a block the agent would send the
 * model must be whole when it is restored, not fail later at the provider.
 */
import { describeValue } from '../../util/describe-value';
import { invalid } from '../errors';
import type { Message } from '../types/message';

/** What the fields of a block must be, by block type: a predicate and its words for each field. */
type FieldChecks = Readonly<Record<string, readonly [check: (value: unknown, present: boolean) => boolean, expected: string]>>;

const isString = (value: unknown): boolean => typeof value === 'string';
const present = (_value: unknown, isPresent: boolean): boolean => isPresent;
const optionalString = (value: unknown, isPresent: boolean): boolean => !isPresent || typeof value === 'string';

const STRING = [isString, 'a string'] as const;
const ANY_VALUE = [present, 'present (any JSON value)'] as const;
const OPTIONAL_STRING = [optionalString, 'a string when present'] as const;
const STATUS = [(value: unknown) => value === 'success' || value === 'error', "'success' or 'error'"] as const;

/** The fields of the block types the kit reads; a block of another type is kept as it is (MW-187 drops it from requests). */
const BLOCK_FIELDS: Readonly<Record<string, FieldChecks>> = {
  text: { text: STRING },
  reasoning: { text: STRING, signature: OPTIONAL_STRING },
  toolUse: { toolUseId: STRING, name: STRING, input: ANY_VALUE },
  toolResult: { toolUseId: STRING, name: OPTIONAL_STRING, status: STATUS },
  cachePoint: { cacheType: STRING },
};

/** The blocks a tool result's `content` holds. */
const RESULT_CONTENT_FIELDS: Readonly<Record<string, FieldChecks>> = {
  text: { text: STRING },
  json: { json: ANY_VALUE },
};

/** How a tool result of a halted turn must be: a `name` too, which every recorded result has (MW-183). */
const RECORDED_RESULT: FieldChecks = { ...BLOCK_FIELDS.toolResult, name: STRING };

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
      checkBlock(block, `${pathOf(index)}.content[${blockIndex}]`, BLOCK_FIELDS);
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
  checkBlock(block, path, { toolResult: RECORDED_RESULT }, 'toolResult');
}

function checkBlock(block: unknown, path: string, types: Readonly<Record<string, FieldChecks>>, only?: string): void {
  if (typeof block !== 'object' || block === null || Array.isArray(block))
    throw invalid(`${path} must be a content block { type, ... }, got ${describeValue(block)}`);
  const record = block as Record<string, unknown>;
  const { type } = record;
  if (only !== undefined && type !== only) throw invalid(`${path}.type must be '${only}', got ${describeValue(type)}`);
  if (typeof type !== 'string') throw invalid(`${path}.type must be a string, got ${describeValue(type)}`);
  const fields = Object.hasOwn(types, type) ? types[type] : undefined;
  if (fields === undefined) return;
  for (const [field, [check, expected]] of Object.entries(fields)) {
    const isPresent = Object.hasOwn(record, field);
    const value = isPresent ? record[field] : undefined;
    if (!check(value, isPresent)) throw invalid(`${path}.${field} of a ${type} block must be ${expected}, got ${describeValue(value)}`);
  }
  if (type === 'toolResult') checkResultContent(record.content, `${path}.content`);
}

function checkResultContent(content: unknown, path: string): void {
  if (!Array.isArray(content))
    throw invalid(`${path} of a toolResult block must be an array of text and json blocks, got ${describeValue(content)}`);
  content.forEach((block: unknown, index) => {
    const at = `${path}[${index}]`;
    checkBlock(block, at, RESULT_CONTENT_FIELDS);
    const { type } = block as { type: string };
    if (!Object.hasOwn(RESULT_CONTENT_FIELDS, type))
      throw invalid(`${at}.type of a tool result's content must be 'text' or 'json', got ${describeValue(type)}`);
  });
}
