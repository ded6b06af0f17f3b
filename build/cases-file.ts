/**
 * How the package ships the conformance cases (used by `tsup.config.ts`):
 * the repository keeps one file per case in `spec/cases/`, where each is
 * read, reviewed and named by its id; the package ships them as one JSON
 * array, in file name order (the order the command reads a directory in).
 *
 * Why one file: a few hundred files of a kilobyte or two each take a disk
 * block apiece and an entry in every install's file list, several times the
 * space of their text, and a program reads one file more simply than a
 * directory.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the build writes the cases, relative to the repository root: the export `staged-middleware/conformance/cases.json`. */
export const CASES_FILE = 'dist/conformance/cases.json';

/** Writes every `*.json` file of `directory`, parsed, in file name order, as one JSON array to `file`. */
export function writeCasesFile(directory: string, file: string): void {
  const cases = readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(directory, name), 'utf8')) as unknown);
  writeFileSync(file, `${JSON.stringify(cases)}\n`);
}
