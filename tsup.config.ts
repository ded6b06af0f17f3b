import { defineConfig } from 'tsup';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CASES_FILE, writeCasesFile } from './build/cases-file';
import { immerWithoutProcess, processShim } from './build/immer-without-process';

/** The library's entry points: each gets both module formats and type declarations. */
const entryPoints = {
  index: 'src/core/index.ts',
  'agent/index': 'src/agent/index.ts',
  'ai-sdk/index': 'src/ai-sdk/index.ts',
  'mcp/index': 'src/mcp/index.ts',
  'durable/index': 'src/durable/index.ts',
  'durable/dbos/index': 'src/durable-dbos/index.ts',
  'middleware/index': 'src/middleware/index.ts',
  'testing/index': 'src/testing/index.ts',
  'conformance/index': 'conformance/index.ts',
  'durable/restate/index': 'src/durable-restate/index.ts',
};

export default defineConfig({
  // The command line (`bin`) shares the library's chunks, so it runs the very code the entry points export.
  entry: { ...entryPoints, cli: 'conformance/cli/main.ts' },
  format: ['esm', 'cjs'],
  // immer is built in, so its types are too: the declarations must not need immer installed beside the package.
  dts: { entry: entryPoints, resolve: ['immer'], compilerOptions: { types: [] } },
  tsconfig: 'tsconfig.src.json',
  // Not shipped: the maps would point at sources the package does not contain; the built code is readable as it is.
  sourcemap: false,
  clean: true,
  treeshake: true,
  splitting: true,
  target: 'es2022',
  platform: 'neutral',
  // The command line is an ES module only (what `bin` runs), so no CommonJS chunk of the library carries an import.meta.url shim for it.
  esbuildOptions(options, { format }) {
    if (format === 'cjs') options.entryPoints = entryPoints;
  },
  // Only the command line imports Node.js modules (`process` included, so the shim below leaves it alone).
  external: ['zod', '@opentelemetry/api', '@ai-sdk/provider', 'ai', '@dbos-inc/dbos-sdk', '@restatedev/restate-sdk', /^node:/],
  // immer is built in so the package loads where there is no `process` (see build/immer-without-process.ts).
  noExternal: ['immer'],
  inject: [processShim],
  esbuildPlugins: [immerWithoutProcess],
  // The conformance cases, one file in the package (see build/cases-file.ts).
  onSuccess: () => {
    mkdirSync(dirname(CASES_FILE), { recursive: true });
    writeCasesFile('spec/cases', CASES_FILE);
    return Promise.resolve();
  },
});
