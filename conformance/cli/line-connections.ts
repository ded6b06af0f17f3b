import { spawn } from 'node:child_process';
import process from 'node:process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { LineConnection } from '../index';

/** How much of a port's stderr a failure report quotes. */
const STDERR_TAIL = 2_000;

/**
 * A port started as a child process: the command runs in a shell (so it may
 * carry arguments and quotes), requests go to its stdin and replies come
 * from its stdout; what it writes to stderr is passed on to `stderr` as it
 * comes, and the end of it is quoted when the port fails.
 */
export function childProcessConnection(command: string, cwd: string, stderr: (text: string) => void): LineConnection {
  const child = spawn(command, { cwd, shell: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let tail = '';
  let exit: string | undefined;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    tail = (tail + text).slice(-STDERR_TAIL);
    stderr(text);
  });
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exit = signal === null ? `exited with code ${String(code)}` : `was ended by ${signal}`;
      resolve();
    });
    child.on('error', (error) => {
      exit = `could not be started: ${error.message}`;
      resolve();
    });
  });
  // A port that exits early closes its stdin; writing then must not crash the runner.
  child.stdin.on('error', () => undefined);
  return {
    ...streamLines(child.stdout, child.stdin),
    async close() {
      // A port ends at the end of its stdin; one that does not (it is stuck) is ended after a moment.
      child.stdin.end();
      const timer = setTimeout(() => child.kill(), 500);
      await exited;
      clearTimeout(timer);
    },
    async diagnostics() {
      // Its stdout closed: the exit follows at once, unless it closed stdout and goes on.
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 500))]);
      return [`the command ${exit ?? 'is still running'}`, tail.trim() === '' ? '' : `its stderr ended with:\n${tail.trim()}`]
        .filter((part) => part !== '')
        .join('; ');
    },
  };
}

/** This process's stdin and stdout, for `conformance serve`. */
export function standardStreamsConnection(): LineConnection {
  return { ...streamLines(process.stdin, process.stdout), close: async () => undefined };
}

/** Lines read from `input`, lines written to `output`. */
function streamLines(input: Readable, output: Writable): Pick<LineConnection, 'lines' | 'write'> {
  return {
    lines: createInterface({ input, crlfDelay: Infinity }),
    write: (line) => void output.write(`${line}\n`),
  };
}
