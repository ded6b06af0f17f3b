/**
 * The error tables: every code's rule exists in the spec and names the code,
 * no code is in two tables, and every code the source raises is in a table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLES, ruleHeadings } from '../../scripts/docs-errors';

const root = join(import.meta.dirname, '..', '..');
const spec = readFileSync(join(root, 'spec', 'SPEC.md'), 'utf8');
const rows = ERROR_TABLES.flatMap(({ subsystem, codes }) => Object.entries(codes).map(([code, { rule }]) => ({ subsystem, code, rule })));

/** The text of one rule: from its heading to the next heading. */
function ruleText(rule: string): string {
  const start = spec.indexOf(`\n### ${rule} `);
  const next = spec.slice(start + 1).search(/\n##/);
  return next === -1 ? spec.slice(start) : spec.slice(start, start + 1 + next);
}

/** Every TypeScript file under `directory`. */
function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('error tables', () => {
  it.each(rows.map((row) => [row.code, row] as const))('%s: names a rule of spec/SPEC.md that mentions it', (code, { rule }) => {
    expect({ ruleExists: ruleHeadings(spec).has(rule), mentionsCode: ruleText(rule).includes(code) }).toEqual({
      ruleExists: true,
      mentionsCode: true,
    });
  });

  it('lists each code in one table only', () => {
    const codes = rows.map((row) => row.code);
    expect(codes.filter((code, index) => codes.indexOf(code) !== index)).toEqual([]);
  });

  it('lists every code the source raises', () => {
    const raised = new Set(
      [join(root, 'src'), join(root, 'conformance')]
        .flatMap(sources)
        // The command line reads Node.js's own codes (ERR_UNKNOWN_FILE_EXTENSION), which are not the package's.
        .filter((file) => !file.startsWith(join(root, 'conformance', 'cli')))
        .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/'(ERR_[A-Z_]+)'/g)].map((match) => match[1] as string)),
    );
    const listed = new Set(rows.map((row) => row.code));
    expect([...raised].filter((code) => !listed.has(code)).sort()).toEqual([]);
  });
});
