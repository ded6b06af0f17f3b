import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The cases this package ships: `spec/cases/` next to `dist/` (two levels up from this file in the sources). */
export const SHIPPED_CASES = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../spec/cases' : '../spec/cases', import.meta.url),
);

/**
 * Every `*.json` file of `directory`, parsed, in file name order.
 *
 * @throws Error naming the file that is not JSON.
 */
export function readCases(directory: string): unknown[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const text = readFileSync(join(directory, file), 'utf8');
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw new Error(`${join(directory, file)} is not JSON: ${(error as Error).message}`, { cause: error });
      }
    });
}
