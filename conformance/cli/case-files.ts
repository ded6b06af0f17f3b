import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The cases this package ships. In the sources, `spec/cases/` (two levels up
 * from this file); in the package, the one file the build writes beside the
 * conformance entry point (`dist/conformance/cases.json`, the export
 * `staged-middleware/conformance/cases.json`): a few hundred small files
 * cost more to install than their text, and one file is what a program
 * reads.
 */
export const SHIPPED_CASES = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../spec/cases' : './conformance/cases.json', import.meta.url),
);

/**
 * The cases at `path`: every `*.json` file of a directory, parsed, in file
 * name order; or a JSON file holding an array of cases (the form the
 * package ships them in).
 *
 * @throws Error naming the file that is not JSON, or the file that holds no array.
 */
export function readCases(path: string): unknown[] {
  if (!statSync(path).isDirectory()) {
    const cases = parseFile(path);
    if (!Array.isArray(cases))
      throw new Error(`${path} holds no array of cases: give a directory of case files, or one JSON file holding an array of cases`);
    return cases;
  }
  return readdirSync(path)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => parseFile(join(path, file)));
}

/** One JSON file, parsed. */
function parseFile(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
}
