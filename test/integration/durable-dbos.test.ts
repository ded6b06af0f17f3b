/**
 * Durable agent runs on DBOS Transact and a real Postgres, across processes
 * killed with SIGKILL: each worker process (`durable-dbos-worker.ts`) runs the
 * reference agent as a DBOS workflow through `staged-middleware/durable/dbos`;
 * a process is killed during a model stream, after a model step before its
 * tools, inside a tool after its side effect, or while the run waits for a
 * human's approval, and a new process finishes the run. The workers append
 * every side effect to a file, which the tests count.
 */
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbosWaitSender, type DbosWaitSender } from '../../src/durable-dbos/index';
import { root } from '../readme-blocks';
import type { Effect, WorkerOptions, WorkerOutcome } from './durable-dbos-worker';
import { startPostgres, type PostgresServer } from './postgres-server';

let postgres: PostgresServer;
let url: string;
let client: DBOSClient;
let approvals: DbosWaitSender;
let directory: string;
let baseline: WorkerOutcome;

/** A worker process, running. */
interface Worker {
  readonly child: ChildProcess;
  /** Resolves to what it printed when it ends normally, or to the signal that killed it. */
  readonly ended: Promise<{ readonly outcome?: WorkerOutcome; readonly signal?: NodeJS.Signals }>;
}

function startWorker(options: Omit<WorkerOptions, 'url'>): Worker {
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/integration/durable-dbos-worker.ts', JSON.stringify({ url, ...options })],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const ended = new Promise<{ readonly outcome?: WorkerOutcome; readonly signal?: NodeJS.Signals }>((resolve, reject) => {
    child.once('close', (code, signal) => {
      if (signal !== null) resolve({ signal });
      else if (code === 0) resolve({ outcome: JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as WorkerOutcome });
      else reject(new Error(`worker ${options.label} exited with ${String(code)}:\n${stderr}`));
    });
  });
  return { child, ended };
}

/** Answers the run's approval as soon as it waits for one, until `stop` is called. */
function approveWhenAsked(runId: string): { readonly stop: () => Promise<void> } {
  const running = { value: true };
  const loop = (async () => {
    while (running.value) {
      const wait = await approvals.pending(runId);
      if (wait !== undefined) await approvals.send(runId, wait.name, { approved: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      running.value = false;
      await loop;
    },
  };
}

/** Runs `runId` in one worker process to its end, answering its approval. */
async function runToEnd(runId: string, label: string, effects: string): Promise<WorkerOutcome> {
  const approver = approveWhenAsked(runId);
  try {
    const { outcome } = await startWorker({ runId, label, effects }).ended;
    if (outcome === undefined) throw new Error(`worker ${label} was killed`);
    return outcome;
  } finally {
    await approver.stop();
  }
}

function effectsOf(file: string): Effect[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Effect);
}

/** How often each side effect happened: `what@process` → count, for the model's finished calls and the tools. */
function tally(effects: readonly Effect[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { what, process: label } of effects) counts[`${what}@${label}`] = (counts[`${what}@${label}`] ?? 0) + 1;
  return counts;
}

function newEffectsFile(name: string): string {
  const file = join(directory, `${name}.jsonl`);
  writeFileSync(file, '');
  return file;
}

beforeAll(async () => {
  postgres = await startPostgres();
  url = await postgres.createDatabase('durable_dbos');
  directory = mkdtempSync(join(tmpdir(), 'staged-middleware-durable-dbos-'));
  // The system tables exist before the first worker launches, so the tests can read a run's wait from the start.
  await DBOS.migrate(url);
  client = await DBOSClient.create({ systemDatabaseUrl: url });
  approvals = dbosWaitSender(client);
  baseline = await runToEnd('baseline', 'only', newEffectsFile('baseline'));
}, 120_000);
afterAll(async () => {
  await (client as DBOSClient | undefined)?.destroy();
  await (postgres as PostgresServer | undefined)?.stop();
  if ((directory as string | undefined) !== undefined) rmSync(directory, { recursive: true, force: true });
});

const ONCE_EACH = {
  'model:1:start': 1,
  'model:1:end': 1,
  'tool:lookup_order': 1,
  'model:2:start': 1,
  'model:2:end': 1,
  'tool:refund_order': 1,
  'model:3:start': 1,
  'model:3:end': 1,
};

// The runs are apart (a run id, a DBOS application and an executor each), so they run at once; a worker process takes seconds to launch DBOS.
describe.concurrent('registerDurableWorkflow on DBOS', { timeout: 120_000 }, () => {
  describe('a run killed with SIGKILL and resumed in a new process', () => {
    it.each([
      {
        kill: 'modelStream' as const,
        first: { 'model:1:start': 1, 'model:1:end': 1, 'tool:lookup_order': 1, 'model:2:start': 1 },
        second: { 'model:2:start': 1, 'model:2:end': 1, 'tool:refund_order': 1, 'model:3:start': 1, 'model:3:end': 1 },
      },
      {
        kill: 'beforeTools' as const,
        first: { 'model:1:start': 1, 'model:1:end': 1 },
        second: {
          'tool:lookup_order': 1,
          'model:2:start': 1,
          'model:2:end': 1,
          'tool:refund_order': 1,
          'model:3:start': 1,
          'model:3:end': 1,
        },
      },
      {
        kill: 'toolEffect' as const,
        first: { 'model:1:start': 1, 'model:1:end': 1, 'tool:lookup_order': 1 },
        second: {
          'tool:lookup_order': 1,
          'model:2:start': 1,
          'model:2:end': 1,
          'tool:refund_order': 1,
          'model:3:start': 1,
          'model:3:end': 1,
        },
      },
    ])('after a kill at $kill, runs every finished step once and ends with the uninterrupted history', async ({ kill, first, second }) => {
      const runId = `killed-${kill}`;
      const effects = newEffectsFile(runId);
      expect(await startWorker({ runId, label: 'first', effects, kill }).ended).toEqual({ signal: 'SIGKILL' });
      const resumed = await runToEnd(runId, 'second', effects);

      const happened = effectsOf(effects);
      expect(tally(happened)).toEqual({
        ...Object.fromEntries(Object.entries(first).map(([what, count]) => [`${what}@first`, count])),
        ...Object.fromEntries(Object.entries(second).map(([what, count]) => [`${what}@second`, count])),
      });
      const lookups = happened.filter(({ what }) => what === 'tool:lookup_order').map(({ key }) => key);
      expect(new Set(lookups)).toEqual(new Set([`${runId}:call-1`]));
      expect(resumed.messages).toEqual(baseline.messages);
      expect(resumed.result).toEqual(baseline.result);
    });

    it('killed while waiting for approval, finishes in a new process once the approval is sent', async () => {
      const runId = 'killed-waiting';
      const effects = newEffectsFile(runId);
      const waiting = startWorker({ runId, label: 'first', effects });
      let wait = await approvals.pending(runId);
      while (wait === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        wait = await approvals.pending(runId);
      }
      waiting.child.kill('SIGKILL');
      expect(await waiting.ended).toEqual({ signal: 'SIGKILL' });
      expect(wait).toEqual({
        name: 'executeTool:call-2:approve',
        request: { id: 'executeTool:call-2:approve', name: 'approve', reason: { refund: { orderId: 'A-1042', amount: 25 } } },
      });
      await approvals.send(runId, wait.name, { approved: true });
      const { outcome } = await startWorker({ runId, label: 'second', effects }).ended;

      expect(tally(effectsOf(effects))).toEqual({
        'model:1:start@first': 1,
        'model:1:end@first': 1,
        'tool:lookup_order@first': 1,
        'model:2:start@first': 1,
        'model:2:end@first': 1,
        'tool:refund_order@second': 1,
        'model:3:start@second': 1,
        'model:3:end@second': 1,
      });
      expect(outcome?.messages).toEqual(baseline.messages);
      expect(await approvals.pending(runId)).toBeUndefined();
    });
  });

  describe('a run resumed by code that asks for other steps', () => {
    it('fails with ERR_REPLAY_DIVERGED naming the step the journal holds and the one asked for', async () => {
      const runId = 'diverged';
      const effects = newEffectsFile(runId);
      expect(await startWorker({ runId, label: 'first', effects, kill: 'beforeTools' }).ended).toEqual({ signal: 'SIGKILL' });
      const { outcome } = await startWorker({ runId, label: 'second', effects, extraStep: true }).ended;

      expect(outcome).toEqual({
        error: {
          name: 'MiddlewareError',
          code: 'ERR_REPLAY_DIVERGED',
          message:
            '[ERR_REPLAY_DIVERGED] Durable run "diverged" diverged from its journal at entry 1: the journal holds step "invokeModel:1", the replay asked for step "extra". Everything outside steps must replay identically: the same handlers in the same order, the same turn decisions, no clock or random value outside a step. Restore the code the run started with, or start a new run id.',
        },
      });
      expect(tally(effectsOf(effects))).toEqual({ 'model:1:start@first': 1, 'model:1:end@first': 1 });
    });
  });

  describe('two workers resuming the same run at once', () => {
    it('lets exactly one of them run the rest, and both end with its result', async () => {
      const runId = 'raced';
      const effects = newEffectsFile(runId);
      expect(await startWorker({ runId, label: 'first', effects, kill: 'toolEffect' }).ended).toEqual({ signal: 'SIGKILL' });
      const approver = approveWhenAsked(runId);
      const [left, right] = await Promise.all([
        startWorker({ runId, label: 'left', effects }).ended,
        startWorker({ runId, label: 'right', effects }).ended,
      ]).finally(() => approver.stop());

      const after = effectsOf(effects).filter(({ process: label }) => label !== 'first');
      const winners = new Set(after.map(({ process: label }) => label));
      expect(winners.size).toBe(1);
      const [winner] = [...winners];
      expect(tally(after)).toEqual(
        Object.fromEntries(
          ['tool:lookup_order', 'model:2:start', 'model:2:end', 'tool:refund_order', 'model:3:start', 'model:3:end'].map((what) => [
            `${what}@${String(winner)}`,
            1,
          ]),
        ),
      );
      expect(left.outcome?.messages).toEqual(baseline.messages);
      expect(right.outcome?.messages).toEqual(baseline.messages);
    });
  });

  describe('the uninterrupted run', () => {
    it('runs each step once, in one process', () => {
      expect(tally(effectsOf(join(directory, 'baseline.jsonl')))).toEqual(
        Object.fromEntries(Object.entries(ONCE_EACH).map(([what, count]) => [`${what}@only`, count])),
      );
    });
  });
});
