/**
 * TypeScript to plain JavaScript for the consumer project, which runs with
 * Node.js alone.
 */
import ts from 'typescript';

/**
 * TypeScript source as plain JavaScript of one module format, with the types
 * dropped and nothing checked (the type checks run on the source).
 */
export function transpile(source: string, format: 'esm' | 'cjs'): string {
  const module = format === 'esm' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS;
  return ts.transpileModule(source, { compilerOptions: { module, target: ts.ScriptTarget.ES2022 } }).outputText;
}
