import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  agentLoopTarget,
  formatReport,
  libraryTarget,
  protocolTarget,
  runConformance,
  serveProtocol,
  type CaseKind,
  type ConformanceTarget,
  type LibraryHost,
} from '../index';
import { loadAdapter } from './adapter-module';
import { readCases, SHIPPED_CASES } from './case-files';
import { childProcessConnection, standardStreamsConnection } from './line-connections';
import { nodeHost } from './node-host';

/** What the command reads and writes: the process's, or a test's. */
export interface CommandIo {
  /** Writes to standard output. */
  readonly stdout: (text: string) => void;
  /** Writes to standard error. */
  readonly stderr: (text: string) => void;
  /** The directory relative paths are resolved from. */
  readonly cwd: string;
  /** What the reliability scenarios get from the runtime; default: Node.js's (`nodeHost`). */
  readonly host?: LibraryHost;
}

/** The exit codes. */
export const EXIT = { passed: 0, failed: 1, usage: 2 } as const;

export const USAGE = `Usage:
  staged-middleware conformance [options]   run the conformance cases and report per case and per rule
  staged-middleware conformance serve       answer the conformance protocol on stdin/stdout with this library

What runs the cases (default: this library, every kind):
  --adapter <module>   your agent loop: a module exporting \`adapter\` (an AgentLoopAdapter of
                       staged-middleware/conformance); runs the agent cases (TypeScript needs tsx)
  --spawn <command>    a port in another language: the command is started in a shell and
                       spoken to over the protocol on its stdin and stdout (spec/README.md)

Which cases:
  --cases <path>       a directory of case files, or one JSON file holding an array of cases
                       (default: the cases this package ships)
  --kind <kinds>       chain, reliability, agent (comma-separated)
  --rules <ids>        cases naming any of these rules (MW-010,MW-011)
  --case <ids>         cases with these ids; * matches any text (core-abort-*)

Output:
  --json               the report as JSON
  --timeout <ms>       how long one request may take (default 10000)

Exit code: 0 when every case the implementation claims passed, 1 when one failed, 2 for a usage error.
`;

/**
 * `staged-middleware conformance …`: runs the cases against the target the
 * options name and prints the report; returns the exit code.
 */
export async function conformanceCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout(USAGE);
    return EXIT.passed;
  }
  const host = io.host ?? nodeHost();
  if (positionals[0] === 'serve') {
    await serveProtocol(libraryTarget({ host }), standardStreamsConnection());
    return EXIT.passed;
  }
  if (positionals.length > 0) {
    io.stderr(`Unknown argument "${positionals[0]}".\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (values.adapter !== undefined && values.spawn !== undefined) {
    io.stderr(`Give --adapter or --spawn, not both.\n\n${USAGE}`);
    return EXIT.usage;
  }
  const kinds = list(values.kind) as CaseKind[] | undefined;
  const unknownKind = kinds?.find((kind) => !['chain', 'reliability', 'agent'].includes(kind));
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (unknownKind !== undefined || (timeoutMs !== undefined && !(timeoutMs > 0))) {
    io.stderr(
      `${unknownKind === undefined ? `--timeout must be a number of milliseconds above 0, got "${String(values.timeout)}"` : `Unknown kind "${unknownKind}"`}.\n\n${USAGE}`,
    );
    return EXIT.usage;
  }
  let target: ConformanceTarget;
  let cases: unknown[];
  try {
    cases = readCases(values.cases === undefined ? SHIPPED_CASES : resolve(io.cwd, values.cases));
    target =
      values.spawn !== undefined
        ? protocolTarget(() => childProcessConnection(values.spawn as string, io.cwd, io.stderr))
        : values.adapter !== undefined
          ? agentLoopTarget(await loadAdapter(values.adapter, io.cwd))
          : libraryTarget({ host });
  } catch (error) {
    io.stderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  }
  try {
    const report = await runConformance(cases, target, {
      // An adapter runs only agent cases: the others would all be reported as not claimed.
      kinds: kinds ?? (values.adapter === undefined ? undefined : ['agent']),
      rules: list(values.rules),
      cases: list(values.case),
      timeoutMs,
    });
    if (report.cases.length === 0) {
      io.stderr('No case matches the filters.\n');
      return EXIT.usage;
    }
    io.stdout(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    return report.summary.failed === 0 ? EXIT.passed : EXIT.failed;
  } catch (error) {
    io.stderr(`${(error as Error).message}\n`);
    return EXIT.usage;
  } finally {
    await target.close?.();
  }
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      adapter: { type: 'string' },
      spawn: { type: 'string' },
      cases: { type: 'string' },
      kind: { type: 'string' },
      rules: { type: 'string' },
      case: { type: 'string' },
      json: { type: 'boolean' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** A comma-separated option as a list. */
function list(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
}
