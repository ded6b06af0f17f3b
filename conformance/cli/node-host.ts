import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { LibraryCopy, LibraryHost } from '../index';
import { runInBareRealm } from './bare-realm';

/**
 * What Node.js gives the reliability scenarios: a forced garbage collection
 * (`--expose-gc` turned on at run time), a second copy of the library
 * that is the other module format of this very package (the ESM build
 * first, the CommonJS build second, as a program that both imports and
 * requires the package loads them; from the TypeScript sources, under tsx,
 * the sources loaded as ESM and as CommonJS), and a realm without `process`
 * to load the library in (`bare-realm.ts`).
 */
export function nodeHost(): LibraryHost {
  return { collectGarbage, loadCopies, runInBareRealm };
}

/** Forces garbage collection a few times, letting finalisation callbacks run in between. */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let attempt = 0; attempt < 5; attempt++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** The package's main, agent and testing entry points, imported and required. */
async function loadCopies(): Promise<{ first: LibraryCopy; second: LibraryCopy }> {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = (name: string, format: 'esm' | 'cjs'): string =>
    new URL(
      fromSources ? `../../src/${name === 'index' ? 'core/index' : name}.ts` : `./${name}.${format === 'esm' ? 'js' : 'cjs'}`,
      import.meta.url,
    ).href;
  const require = createRequire(import.meta.url);
  const imported = async (name: string): Promise<unknown> => import(entry(name, 'esm'));
  const required = (name: string): unknown => require(fileURLToPath(entry(name, 'cjs')));
  const first = {
    core: await imported('index'),
    agent: await imported('agent/index'),
    testing: await imported('testing/index'),
  } as LibraryCopy;
  const second = { core: required('index'), agent: required('agent/index'), testing: required('testing/index') } as LibraryCopy;
  return { first, second };
}
