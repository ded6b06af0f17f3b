/**
 * A durable run across processes (MW-136, MW-137): one Node.js process halts
 * on an approval and exits; another, started afterwards, creates the agent
 * from the file session and resumes it, ending exactly where a resume in the
 * first process would have.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index';
import { durableAgentOptions, FIRST_TURNS, LATER_TURNS } from './durable-run-script';

const scratch = mkdtempSync(join(tmpdir(), 'durable-run-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs one step of the script in a new Node.js process and returns the JSON it printed. */
function step(name: 'halt' | 'resume', directory: string): Record<string, unknown> {
  const script = join(import.meta.dirname, 'durable-run-script.ts');
  return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', script, name, directory], { encoding: 'utf8' })) as Record<
    string,
    unknown
  >;
}

describe('Agent', () => {
  describe('a run halted in one process and resumed in another', () => {
    // Two Node.js processes, each compiling the script with tsx, take more than the default 5 s on a loaded machine.
    it('goes on exactly as a resume in the first process does', async () => {
      const directory = join(scratch, 'two-processes');
      const halted = step('halt', directory);
      const resumed = step('resume', directory);

      const inProcess = await Agent.fromSession(durableAgentOptions(join(scratch, 'one-process'), [...FIRST_TURNS, ...LATER_TURNS]));
      await inProcess.invoke('Refund order 42.', { invocationState: { operator: 'ana' } });
      const pending = inProcess.pendingInterrupts;
      const result = await inProcess.resume({ 'executeTool:r1:approve': 'yes' });

      expect({
        processes: halted.pid !== resumed.pid,
        halted: [halted.stopReason, halted.interrupts],
        files: readdirSync(directory),
      }).toEqual({
        processes: true,
        halted: ['interrupt', [{ id: 'executeTool:r1:approve', name: 'approve', reason: { refund: { amount: 30 } } }]],
        files: ['order-42.json'],
      });
      expect({ pending: resumed.pending, stopReason: resumed.stopReason, usage: resumed.usage, messages: resumed.messages }).toEqual({
        pending,
        stopReason: result.stopReason,
        usage: inProcess.usage,
        messages: inProcess.messages,
      });
      // The halted run's invocation state crossed the process boundary: the tool saw the operator.
      expect(inProcess.messages[2]).toEqual({
        role: 'user',
        content: [
          {
            type: 'toolResult',
            toolUseId: 'r1',
            name: 'refund',
            status: 'success',
            content: [{ type: 'json', json: { refunded: { amount: 30 }, by: 'ana' } }],
          },
        ],
      });
    }, 60_000);
  });
});
