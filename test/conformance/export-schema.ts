/**
 * Writes `spec/case.schema.json` from the zod schema of the case format.
 * Run with `npx tsx test/conformance/export-schema.ts` after changing `schema.ts`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { caseJsonSchema } from './schema';

const target = join(import.meta.dirname, '..', '..', 'spec', 'case.schema.json');
writeFileSync(target, `${JSON.stringify(caseJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
