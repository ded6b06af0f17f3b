/**
 * Writes the JSON Schemas of `spec/` from their zod sources: the case formats
 * (`case.schema.json`, `reliability-case.schema.json`, `agent-case.schema.json`)
 * and the protocol (`protocol.schema.json`), and the table of the protocol's
 * messages in `spec/README.md` (between its `messages:start` and
 * `messages:end` comments).
 * Run with `npx tsx test/conformance/export-schema.ts` after changing one of them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentCaseJsonSchema } from '../../conformance/cases/agent-case';
import { caseJsonSchema } from '../../conformance/cases/chain-case';
import { reliabilityCaseJsonSchema } from '../../conformance/cases/reliability-case';
import { protocolJsonSchema, protocolMessageTable } from '../../conformance/protocol/protocol-schema';
import { withMessageTable } from './message-table-block';

const spec = join(import.meta.dirname, '..', '..', 'spec');
const schemas: Record<string, unknown> = {
  'case.schema.json': caseJsonSchema(),
  'reliability-case.schema.json': reliabilityCaseJsonSchema(),
  'agent-case.schema.json': agentCaseJsonSchema(),
  'protocol.schema.json': protocolJsonSchema(),
};
for (const [file, schema] of Object.entries(schemas)) {
  const target = join(spec, file);
  writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${target}`);
}
const readme = join(spec, 'README.md');
writeFileSync(readme, withMessageTable(readFileSync(readme, 'utf8'), protocolMessageTable()));
console.log(`wrote the table of messages into ${readme}`);
