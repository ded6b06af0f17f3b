#!/usr/bin/env node
/**
 * The `staged-middleware` command: `staged-middleware conformance …` runs
 * the conformance cases (see `conformance-command.ts` and `--help`).
 */
// Imported, not the global: the build injects a module-local `process` for immer wherever the global is named.
import process from 'node:process';
import { conformanceCommand, EXIT, USAGE } from './conformance-command';

/** Runs the command line's arguments and returns the exit code. */
async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  const io = {
    stdout: (text: string) => void process.stdout.write(text),
    stderr: (text: string) => void process.stderr.write(text),
    cwd: process.cwd(),
  };
  if (command === 'conformance') return conformanceCommand(rest, io);
  io.stderr(command === undefined || command === '--help' ? USAGE : `Unknown command "${command}".\n\n${USAGE}`);
  return EXIT.usage;
}

// Exit once the output is written: a case may leave a never-settling promise behind, and a pipe may still be draining.
void main(process.argv.slice(2)).then((code) => process.stdout.write('', () => process.exit(code)));
