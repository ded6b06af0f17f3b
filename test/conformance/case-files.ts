/**
 * The case files of `spec/cases/`, read once per test file, and the host the
 * in-process runs give the reliability scenarios under vitest.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';
import { nodeHost } from '../../conformance/cli/node-host';
import type { LibraryCopy, LibraryHost } from '../../conformance/index';
import { bareRealmOfSource } from '../reliability/bare-realm-source';

/** The `spec/` directory. */
export const specDirectory = join(import.meta.dirname, '..', '..', 'spec');

/** The `spec/cases/` directory. */
export const casesDirectory = join(specDirectory, 'cases');

/** One case file: its name and its parsed JSON. */
export interface CaseFile {
  /** The file name. */
  readonly file: string;
  /** The parsed contents. */
  readonly raw: { readonly id?: unknown; readonly kind?: unknown; readonly rules?: unknown; readonly [key: string]: unknown };
}

/** Every case file, sorted by name. */
export const caseFiles: readonly CaseFile[] = readdirSync(casesDirectory)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({ file, raw: JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as CaseFile['raw'] }));

/** The case files of one kind. */
export function casesOfKind(kind: string): readonly CaseFile[] {
  return caseFiles.filter(({ raw }) => raw.kind === kind);
}

/** A copy of the library with module-level values of its own, as the other module format or a second installed copy has. */
async function loadCopy(): Promise<LibraryCopy> {
  vi.resetModules();
  const core = await import('../../src/core/index');
  const agent = await import('../../src/agent/index');
  const testing = await import('../../src/testing/index');
  return { core, agent, testing };
}

/**
 * The host of in-process runs under vitest: Node.js's collector, copies as fresh module instances (vitest cannot
 * require the sources), and `src/` bundled into Vercel's edge-runtime as the bare realm.
 */
export const vitestHost: LibraryHost = {
  collectGarbage: nodeHost().collectGarbage,
  loadCopies: async () => ({ first: await loadCopy(), second: await loadCopy() }),
  runInBareRealm: bareRealmOfSource,
};
