/**
 * Writes `spec/reliability-case.schema.json` from the zod schema of the
 * reliability case format. Run with `npx tsx test/reliability/export-schema.ts`
 * after changing `case-schema.ts`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reliabilityCaseJsonSchema } from './case-schema';

const target = join(import.meta.dirname, '..', '..', 'spec', 'reliability-case.schema.json');
writeFileSync(target, `${JSON.stringify(reliabilityCaseJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
