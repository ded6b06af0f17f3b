import { defineConfig } from 'tsup';

/** The library's entry points: each gets both module formats and type declarations. */
const entryPoints = {
  index: 'src/index.ts',
  'agent/index': 'src/agent/index.ts',
  'middleware/index': 'src/middleware/index.ts',
  'testing/index': 'src/testing/index.ts',
  'conformance/index': 'src/conformance/index.ts',
};

export default defineConfig({
  // The command line (`bin`) shares the library's chunks, so it runs the very code the entry points export.
  entry: { ...entryPoints, cli: 'cli/main.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: entryPoints, compilerOptions: { types: [] } },
  tsconfig: 'tsconfig.src.json',
  sourcemap: true,
  clean: true,
  treeshake: true,
  splitting: true,
  target: 'es2022',
  platform: 'neutral',
  // Only the command line imports Node.js modules; `shims` gives its CommonJS copy an import.meta.url.
  shims: true,
  external: ['immer', 'zod', '@opentelemetry/api', /^node:/],
});
