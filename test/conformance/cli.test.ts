/**
 * The `staged-middleware conformance` command, run in this process (the
 * packed-package tier runs the installed bin): against this library, against
 * the loop of examples/own-loop.ts through its adapter, and against this
 * library serving the protocol in a child process.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conformanceCommand, USAGE } from '../../conformance/cli/conformance-command';
import { adapter as ownLoopAdapter } from '../../examples/own-loop-adapter';
import type { ConformanceReport } from '../../conformance/index';
import { caseFiles, casesDirectory, vitestHost } from './case-files';

const root = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs the command in this process and returns its exit code and output. */
async function command(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await conformanceCommand(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: root,
    host: vitestHost,
  });
  return { code, stdout, stderr };
}

/** Starts `staged-middleware conformance serve` from the sources, writes `lines` to its stdin, closes it, and waits for the exit. */
function served(lines: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/cli/main.ts', 'conformance', 'serve'], { cwd: root });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdin.end(lines.map((line) => `${line}\n`).join(''));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** The summary, conformance and statuses of a JSON report. */
function verdict(stdout: string): { summary: unknown; conformance: unknown; statuses: Record<string, string> } {
  const report = JSON.parse(stdout) as ConformanceReport;
  return {
    summary: report.summary,
    conformance: report.conformance,
    statuses: Object.fromEntries(report.cases.map((outcome) => [outcome.id, outcome.status])),
  };
}

/** A whole run of the cases takes seconds, more on a busy machine or under coverage. */
const WHOLE_RUN = { timeout: 60_000 };

/** Every case passed. */
const allPassed = {
  summary: { passed: caseFiles.length, failed: 0, notClaimed: 0 },
  conformance: { core: true, full: true },
  statuses: Object.fromEntries(caseFiles.map(({ raw }) => [raw.id, 'passed'])),
};

describe('staged-middleware conformance', () => {
  describe('against this library', () => {
    it('passes every case of every kind, with core and full conformance', WHOLE_RUN, async () => {
      const { code, stdout, stderr } = await command(['--json']);
      expect({ code, stderr, verdict: verdict(stdout) }).toEqual({ code: 0, stderr: '', verdict: allPassed });
    });
  });

  describe('against this library serving the protocol in a child process', () => {
    it('passes every case of every kind', WHOLE_RUN, async () => {
      const { code, stdout, stderr } = await command([
        '--json',
        '--spawn',
        `"${process.execPath}" --import tsx conformance/cli/main.ts conformance serve`,
      ]);
      expect({ code, stderr, verdict: verdict(stdout) }).toEqual({ code: 0, stderr: '', verdict: allPassed });
    });
  });

  describe('against examples/own-loop.ts through its adapter', () => {
    it('passes every agent case its capabilities cover, reports the others as not claimed, and says how the loop did', async () => {
      const { code, stdout } = await command(['--adapter', 'examples/own-loop-adapter.ts', '--json']);
      const agentCases = caseFiles.filter(({ raw }) => raw.kind === 'agent');
      const covered = ({ raw }: (typeof agentCases)[number]): boolean =>
        (raw.needs as string[]).every((need) => (ownLoopAdapter.capabilities as readonly string[]).includes(need));
      expect({ code, statuses: verdict(stdout).statuses, agentLoop: (JSON.parse(stdout) as ConformanceReport).agentLoop }).toEqual({
        code: 0,
        statuses: Object.fromEntries(agentCases.map((file) => [file.raw.id, covered(file) ? 'passed' : 'not-claimed'])),
        agentLoop: {
          passed: true,
          cases: agentCases.length,
          failed: [],
          notClaimed: agentCases.filter((file) => !covered(file)).map(({ raw }) => raw.id),
        },
      });
      expect(agentCases.filter(covered).length).toBeGreaterThanOrEqual(20);
    });
  });

  describe('with filters', () => {
    it('runs only the selected cases and prints the text report', async () => {
      const { code, stdout } = await command(['--kind', 'chain', '--rules', 'MW-051', '--case', 'registry-*']);
      expect({ code, lines: stdout.split('\n').slice(2) }).toEqual({
        code: 0,
        lines: [
          '  filters: {"rules":["MW-051"],"kinds":["chain"],"cases":["registry-*"]}',
          '',
          'chain cases',
          '  pass        registry-describe-per-invoke-replace (MW-047, MW-050, MW-051)',
          '  pass        registry-explain (MW-051)',
          '',
          'rules: 3 passed, 0 failed, 0 not fully claimed',
          'cases: 2 passed, 0 failed, 0 not claimed',
          'conformance: not determined (the run was filtered)',
          '',
        ],
      });
    });
  });

  describe('with --cases naming one file holding an array of cases', () => {
    it('runs the cases of the file, as it runs those of a directory', async () => {
      const file = join(scratch, 'two-cases.json');
      const chosen = caseFiles.filter(({ file: name }) => name === 'core-short-circuit.json' || name === 'registry-explain.json');
      writeFileSync(file, JSON.stringify(chosen.map(({ raw }) => raw)));
      const { code, stdout, stderr } = await command(['--cases', file, '--json']);
      expect({ code, stderr, verdict: verdict(stdout) }).toEqual({
        code: 0,
        stderr: '',
        verdict: {
          summary: { passed: 2, failed: 0, notClaimed: 0 },
          conformance: { core: true, full: true },
          statuses: { 'core-short-circuit': 'passed', 'registry-explain': 'passed' },
        },
      });
    });
  });

  describe('with a case that fails', () => {
    it('exits with 1 and shows what differed', async () => {
      const directory = mkdtempSync(join(scratch, 'cases-'));
      const testCase = JSON.parse(readFileSync(join(casesDirectory, 'core-short-circuit.json'), 'utf8')) as { expect: { trace: string[] } };
      testCase.expect.trace = ['inner'];
      writeFileSync(join(directory, 'core-short-circuit.json'), JSON.stringify(testCase));
      copyFileSync(join(casesDirectory, 'registry-explain.json'), join(directory, 'registry-explain.json'));
      const { code, stdout } = await command(['--cases', directory]);
      expect({
        code,
        failed: stdout.split('\n').filter((line) => line.startsWith('  FAIL') || line.startsWith('      ') || line.startsWith('        ')),
      }).toEqual({
        code: 1,
        failed: ['  FAIL        core-short-circuit (MW-014)', '      trace', '        expected ["inner"]', '        observed ["outer"]'],
      });
    });
  });

  describe('serve, in a child process', () => {
    it('answers each line that is no request with the failure reply of id -1, goes on, and exits with 0 at the end of its input', async () => {
      const lines = ['null', '[1]', '7', '"hello"', 'not json', '{"op":"hello","protocol":1}', '{"id":1,"op":"hello","protocol":1}'];
      const { code, stdout, stderr } = await served(lines);
      const replies = stdout.split('\n').map((line) => (line === '' ? line : (JSON.parse(line) as Record<string, unknown>)));
      const hello = replies[6] as Record<string, unknown> | undefined;
      expect({ code, stderr, failures: replies.slice(0, 6), hello: [hello?.id, hello?.protocol], end: replies.slice(7) }).toEqual({
        code: 0,
        stderr: '',
        failures: [
          { id: -1, failure: 'not a request (a JSON object with an id), got null: null' },
          { id: -1, failure: 'not a request (a JSON object with an id), got an array of length 1: [1]' },
          { id: -1, failure: 'not a request (a JSON object with an id), got number 7: 7' },
          { id: -1, failure: 'not a request (a JSON object with an id), got the string "hello": "hello"' },
          { id: -1, failure: 'not a JSON request: not json' },
          { id: -1, failure: 'not a request: its id must be an integer from 0, got undefined: {"op":"hello","protocol":1}' },
        ],
        hello: [1, 1],
        end: [''],
      });
    });
  });

  describe('with a port that fails', () => {
    it.each([
      // What the port writes to stderr is passed on as it comes, then quoted in the failure.
      [
        'exits at once',
        ['--spawn', `"${process.execPath}" -e "process.stderr.write('no luck'); process.exit(3)"`],
        'no luckThe implementation did not answer hello: hello failed: the port closed the connection: the command exited with code 3; its stderr ended with:\nno luck\n',
      ],
      [
        'never answers',
        ['--timeout', '300', '--spawn', `"${process.execPath}" -e "setTimeout(() => undefined, 60000)"`],
        'The implementation did not answer hello: no reply to hello within 300 ms\n',
      ],
    ])('exits with 2 when the port %s, saying why', async (_name, args, stderr) => {
      expect(await command(args)).toEqual({ code: 2, stdout: '', stderr });
    });
  });

  describe('with arguments it cannot use', () => {
    it.each([
      ['an unknown option', ['--kinds', 'chain'], "Unknown option '--kinds'"],
      ['an unknown kind', ['--kind', 'chains'], 'Unknown kind "chains".'],
      ['a timeout that is no duration', ['--timeout', 'soon'], '--timeout must be a number of milliseconds above 0, got "soon".'],
      ['both an adapter and a port', ['--adapter', 'a.js', '--spawn', 'b'], 'Give --adapter or --spawn, not both.'],
      ['an unknown argument', ['run'], 'Unknown argument "run".'],
      ['filters no case matches', ['--case', 'no-such-case'], 'No case matches the filters.'],
      ['a directory without cases', ['--cases', 'no/such/directory'], 'ENOENT'],
      ['a file holding no array of cases', ['--cases', 'package.json'], 'package.json holds no array of cases'],
      ['a module without an adapter', ['--adapter', 'examples/own-loop.ts'], 'examples/own-loop.ts must export `adapter`'],
    ])('exits with 2 on %s, saying what is wrong', async (_name, args, message) => {
      const { code, stdout, stderr } = await command(args);
      expect({ code, stdout, says: stderr.includes(message) }).toEqual({ code: 2, stdout: '', says: true });
    });

    it('prints the usage for --help', async () => {
      expect(await command(['--help'])).toEqual({ code: 0, stdout: USAGE, stderr: '' });
    });
  });
});
