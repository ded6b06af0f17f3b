import { defineConfig } from 'tsup';
import { immerWithoutProcess, processShim } from './build/immer-without-process';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'agent/index': 'src/agent/index.ts',
    'middleware/index': 'src/middleware/index.ts',
    'testing/index': 'src/testing/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { types: [] } },
  tsconfig: 'tsconfig.src.json',
  // Not shipped: the maps would point at sources the package does not contain; the built code is readable as it is.
  sourcemap: false,
  clean: true,
  treeshake: true,
  splitting: true,
  target: 'es2022',
  platform: 'neutral',
  external: ['zod', '@opentelemetry/api'],
  // immer is built in so the package loads where there is no `process` (see build/immer-without-process.ts).
  noExternal: ['immer'],
  inject: [processShim],
  esbuildPlugins: [immerWithoutProcess],
});
