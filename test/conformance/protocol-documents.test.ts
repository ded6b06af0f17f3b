/**
 * The protocol's documents made from its zod schemas: the definitions of the
 * committed JSON Schemas are named for what they are, and the table of
 * messages in `spec/README.md` is the one the schemas give.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protocolMessageTable } from '../../conformance/protocol/protocol-schema';
import { specDirectory } from './case-files';
import { messageTableIn } from './message-table-block';

/** The definition names of a committed schema. */
function definitions(file: string): string[] {
  const schema = JSON.parse(readFileSync(join(specDirectory, file), 'utf8')) as { $defs?: Record<string, unknown> };
  return Object.keys(schema.$defs ?? {});
}

describe('the committed JSON Schemas', () => {
  it.each(['case.schema.json', 'reliability-case.schema.json', 'agent-case.schema.json', 'protocol.schema.json'])(
    'name every definition of %s',
    (file) => {
      expect(definitions(file).filter((name) => /^__schema\d+$/.test(name))).toEqual([]);
    },
  );

  it('name the request and the reply of each op of the protocol after the op', () => {
    const names = definitions('protocol.schema.json');
    expect(
      [
        'HelloRequest',
        'HelloReply',
        'ChainAddRequest',
        'ChainAsyncDisposeReply',
        'AgentRunRequest',
        'ReliabilityRunReply',
        'FailureReply',
      ].filter((name) => !names.includes(name)),
    ).toEqual([]);
  });
});

describe('the span attributes of an agent case', () => {
  /** Every `description` of an `attributes` property in a committed schema. */
  function attributeDescriptions(file: string): string[] {
    const found: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return;
      const attributes = (value as { properties?: { attributes?: { description?: unknown } } }).properties?.attributes;
      if (typeof attributes?.description === 'string') found.push(attributes.description);
      Object.values(value).forEach(walk);
    };
    walk(JSON.parse(readFileSync(join(specDirectory, file), 'utf8')));
    return found;
  }

  it('are described alike where a case states them and where a port reports them', () => {
    const [stated] = attributeDescriptions('agent-case.schema.json');
    expect([...new Set(attributeDescriptions('protocol.schema.json'))]).toEqual([stated]);
  });
});

describe('spec/README.md', () => {
  describe('the table of messages', () => {
    it('is the table the zod schemas of the protocol give', () => {
      // Regenerate with: npx tsx test/conformance/export-schema.ts
      expect(messageTableIn(readFileSync(join(specDirectory, 'README.md'), 'utf8'))).toEqual(protocolMessageTable());
    });

    it('has a row for every op, with the fields of its request and its reply', () => {
      const table = protocolMessageTable().split('\n');
      expect({ rows: table.length, hello: table.find((row) => row.startsWith('| `hello` |')) }).toEqual({
        rows: 2 + 20 + 1,
        hello:
          '| `hello` | `protocol`: integer | `protocol`: integer, `name`: string, `kinds`: array of "chain" \\| "reliability" \\| "agent", `builtins`?: array of string \\| BuiltinClaim, `scenarios`?: array of string, `capabilities`?: array of string |',
      });
    });
  });
});
