/**
 * How the package builds immer in (used by `tsup.config.ts`, and by the
 * `bare-realm` conformance scenario, which bundles `src/` the same way).
 *
 * Why: immer's published builds read `process.env.NODE_ENV`, which throws
 * "process is not defined" where no bundler replaced it (a browser loading
 * the package through an import map, Cloudflare workerd, other edge
 * runtimes). Built in, that read goes to `process-shim.ts`, a module-local
 * binding that needs no global. Both formats take immer's ESM development
 * build, whose internal draft fields match what an application's own immer
 * reads (`current`, `original` on a draft the library made), and keep
 * immer's licence with it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';

const immerPackage = dirname(createRequire(import.meta.url).resolve('immer/package.json'));
const immerModule = join(immerPackage, 'dist', 'immer.mjs');

/**
 * The module to inject into the build, which provides the `process` immer's
 * code reads; relative to the repository root, the working directory of
 * every build (tsup bundles its config, so the config's own location is not
 * this file's).
 */
export const processShim = 'build/process-shim.ts';

/** Resolves `immer` to its ESM build, prefixed with its licence as a legal comment. */
export const immerWithoutProcess: Plugin = {
  name: 'immer-without-process',
  setup(build) {
    build.onResolve({ filter: /^immer$/ }, () => ({ path: immerModule }));
    build.onLoad({ filter: /[\\/]immer[\\/]dist[\\/]immer\.mjs$/ }, () => {
      const { version } = JSON.parse(readFileSync(join(immerPackage, 'package.json'), 'utf8')) as { version: string };
      const licence = readFileSync(join(immerPackage, 'LICENSE'), 'utf8').trim();
      const code = readFileSync(immerModule, 'utf8').replace(/\/\/# sourceMappingURL=.*$/m, '');
      return { contents: `/*! immer ${version}, built into staged-middleware.\n${licence}\n*/\n${code}`, loader: 'js' };
    });
  },
};
