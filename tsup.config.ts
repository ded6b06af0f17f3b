import { defineConfig } from 'tsup';

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
  sourcemap: true,
  clean: true,
  treeshake: true,
  splitting: true,
  target: 'es2022',
  platform: 'neutral',
  external: ['immer', 'zod', '@opentelemetry/api'],
});
