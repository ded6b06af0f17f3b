/**
 * Writes `spec/agent-case.schema.json` from the zod schema of the agent case format.
 * Run with `npx tsx test/agent/export-schema.ts` after changing `case-schema.ts`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentCaseJsonSchema } from './case-schema';

const target = join(import.meta.dirname, '..', '..', 'spec', 'agent-case.schema.json');
writeFileSync(target, `${JSON.stringify(agentCaseJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
