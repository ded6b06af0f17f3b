/**
 * Durable agent runs on a real Restate server (`@restatedev/restate-server`
 * from npm) with the SDK endpoint in a child process (`restate-endpoint.ts`):
 * the reference agent as the workflow `agentRun` of
 * `staged-middleware/durable/restate`. The endpoint is killed with SIGKILL at
 * each point where a process can die, a new one takes its place on the same
 * port, Restate retries the invocation there, and the run goes on from its
 * journal. Side effects are counted in a file, so counts survive the kill.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { restateWaitSender } from '../../src/durable-restate/index';
import type { RestateAgentRun } from '../../src/durable-restate/index';
import { effectsOf, killEndpoints, startEndpoint, type Endpoint } from './restate-endpoints';
import { freePort } from './free-port';
import { startRestate, type RestateServer } from './restate-server';

const WORKFLOW = 'agentRun';
const APPROVAL = 'executeTool:use-refund:approve';
const INPUT = 'Charge 5, then refund 2.';

let server: RestateServer;
let port: number;
let directory: string;
let baseline: RestateAgentRun;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'staged-middleware-restate-effects-'));
  server = await startRestate();
  port = await freePort();
  const endpoint = startEndpoint({ port, effects: join(directory, 'register.log') });
  await endpoint.listening;
  await server.register(`http://127.0.0.1:${String(port)}`);
  await endpoint.kill();
});
afterEach(killEndpoints);
afterAll(async () => {
  // Not started when beforeAll failed.
  await (server as RestateServer | undefined)?.stop();
  if ((directory as string | undefined) !== undefined) rmSync(directory, { recursive: true, force: true });
});

/** POSTs `body` to the handler `handler` of the workflow run `key` (`/send` starts it without waiting). */
async function call(key: string, handler: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${server.ingress}/${WORKFLOW}/${key}/${handler}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${handler} of ${key}: ${String(response.status)} ${text}`);
  return text.length === 0 ? undefined : JSON.parse(text);
}

/** Starts the run `key` without waiting for it: Restate's answer (`Accepted`, or `PreviouslyAccepted` for a key it knows). */
function start(key: string): Promise<{ invocationId: string; status: string }> {
  return call(key, 'run/send', INPUT) as Promise<{ invocationId: string; status: string }>;
}

/** Resolves once the run `key` waits for the approval (its `waits` handler lists it). */
async function waitingForApproval(key: string): Promise<unknown> {
  for (;;) {
    const waits = (await call(key, 'waits')) as Record<string, unknown>;
    if (APPROVAL in waits) return waits[APPROVAL];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The run's output, once it ends (the endpoint must be up). */
async function outcome(key: string): Promise<RestateAgentRun> {
  const response = await fetch(`${server.ingress}/restate/workflow/${WORKFLOW}/${key}/attach`);
  return (await response.json()) as RestateAgentRun;
}

const sender = (): ReturnType<typeof restateWaitSender> => restateWaitSender({ ingress: server.ingress, workflow: WORKFLOW });

/** What the effects file of an uninterrupted run holds: each step once, in the one process. */
function effectsOfOneRun(runId: string, process = (_effect: string) => 1): string[] {
  return ['model 0', `charge ${runId}:use-charge`, 'model 1', `refund ${runId}:use-refund "yes"`, 'model 2'].map(
    (effect) => `${String(process(effect))} ${effect}`,
  );
}

/**
 * Runs `key` with a first endpoint stopped at `stopAt` (or, for `approval`, waiting
 * for it), kills it, and finishes the run on a second endpoint.
 */
async function killedAt(
  key: string,
  stopAt: 'modelStream' | 'beforeTools' | 'toolEffect' | 'approval',
): Promise<{ run: RestateAgentRun; effects: string[] }> {
  const effects = join(directory, `${key}.log`);
  const first: Endpoint = startEndpoint({ port, effects, ...(stopAt === 'approval' ? {} : { stopAt }) });
  await first.listening;
  await start(key);
  if (stopAt === 'approval') await waitingForApproval(key);
  else expect(await first.reached).toBe(stopAt);
  await first.kill();
  const second = startEndpoint({ port, effects });
  await second.listening;
  await waitingForApproval(key);
  await sender().send(key, APPROVAL, 'yes');
  const run = await outcome(key);
  await second.kill();
  return { run, effects: effectsOf(effects) };
}

describe('agentWorkflowHandlers on a real Restate server', () => {
  describe('a run no process dies in', () => {
    it('runs every step once and waits for the approval as a durable promise the sender resolves', async () => {
      const effects = join(directory, 'baseline.log');
      const endpoint = startEndpoint({ port, effects });
      await endpoint.listening;
      const started = await start('baseline');
      expect(await waitingForApproval('baseline')).toEqual({ id: APPROVAL, name: 'approve', reason: { refund: 2 } });
      await sender().send('baseline', APPROVAL, 'yes');
      baseline = await outcome('baseline');
      await endpoint.kill();
      expect(baseline.runId).toBe(started.invocationId);
      expect(baseline.result.stopReason).toBe('endTurn');
      expect(baseline.result.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Charged 5 and refunded 2.' }] });
      expect(effectsOf(effects)).toEqual(effectsOfOneRun(baseline.runId));
    });
  });

  describe('the endpoint killed with SIGKILL and started again', () => {
    it('during a model stream: runs that model step again, every finished step once, and ends as the uninterrupted run', async () => {
      const { run, effects } = await killedAt('model-stream', 'modelStream');
      expect(effects).toEqual(['1 model 0', ...effectsOfOneRun(run.runId, () => 2)]);
      expect({ result: run.result, messages: run.messages }).toEqual({ result: baseline.result, messages: baseline.messages });
    });

    it('after a model step, before its tools: replays the model step without calling the model', async () => {
      const { run, effects } = await killedAt('before-tools', 'beforeTools');
      expect(effects).toEqual(effectsOfOneRun(run.runId, (effect) => (effect === 'model 0' ? 1 : 2)));
      expect({ result: run.result, messages: run.messages }).toEqual({ result: baseline.result, messages: baseline.messages });
    });

    it('inside a tool after its side effect: runs the tool a second time with the same idempotency key', async () => {
      const { run, effects } = await killedAt('tool-effect', 'toolEffect');
      expect(effects).toEqual([
        '1 model 0',
        `1 charge ${run.runId}:use-charge`,
        `2 charge ${run.runId}:use-charge`,
        '2 model 1',
        `2 refund ${run.runId}:use-refund "yes"`,
        '2 model 2',
      ]);
      expect({ result: run.result, messages: run.messages }).toEqual({ result: baseline.result, messages: baseline.messages });
    });

    it('while waiting for approval: holds the wait without the process and goes on when the answer comes', async () => {
      const { run, effects } = await killedAt('approval', 'approval');
      expect(effects).toEqual(effectsOfOneRun(run.runId, (effect) => (effect.startsWith('refund') || effect === 'model 2' ? 2 : 1)));
      expect({ result: run.result, messages: run.messages }).toEqual({ result: baseline.result, messages: baseline.messages });
    });
  });

  describe('in a service, the approval an awakeable', () => {
    it('publishes its id, holds it across a killed endpoint, and goes on when it is resolved', async () => {
      const effects = join(directory, 'service.log');
      const first = startEndpoint({ port, effects });
      await first.listening;
      const response = await fetch(`${server.ingress}/agentService/run/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(INPUT),
      });
      const { invocationId } = (await response.json()) as { invocationId: string };
      let published: string | undefined;
      for (let tries = 0; published === undefined; tries += 1) {
        if (tries === 200) throw new Error(`no awakeable published in 20 s; effects: ${JSON.stringify(effectsOf(effects))}`);
        published = effectsOf(effects).find((effect) => effect.startsWith('1 awakeable '));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await first.kill();
      const second = startEndpoint({ port, effects });
      await second.listening;
      const awakeableId = published.split(' ').at(-1) ?? '';
      const resolved = await fetch(`${server.ingress}/restate/awakeables/${awakeableId}/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify('yes'),
      });
      expect(resolved.status).toBe(202);
      const run = (await (await fetch(`${server.ingress}/restate/invocation/${invocationId}/attach`)).json()) as RestateAgentRun;
      await second.kill();
      expect(effectsOf(effects)).toEqual([
        '1 model 0',
        `1 charge ${invocationId}:use-charge`,
        '1 model 1',
        `1 awakeable ${APPROVAL} ${awakeableId}`,
        `2 refund ${invocationId}:use-refund "yes"`,
        '2 model 2',
      ]);
      expect({ runId: run.runId, result: run.result, messages: run.messages }).toEqual({
        runId: invocationId,
        result: baseline.result,
        messages: baseline.messages,
      });
    });
  });

  describe('two attempts to start or resume the same run', () => {
    it('lets exactly one proceed: one invocation per workflow key, and the first answer to a wait wins', async () => {
      const key = 'race';
      const effects = join(directory, `${key}.log`);
      const first = startEndpoint({ port, effects, stopAt: 'toolEffect' });
      await first.listening;
      const starts = await Promise.all([start(key), start(key)]);
      expect(starts.map(({ status }) => status).sort()).toEqual(['Accepted', 'PreviouslyAccepted']);
      const [{ invocationId }, { invocationId: again }] = starts;
      expect(again).toBe(invocationId);
      await first.reached;
      await first.kill();
      const second = startEndpoint({ port, effects });
      await second.listening;
      const resumes = await Promise.all([start(key), start(key)]);
      expect(resumes).toEqual([
        { invocationId, status: 'PreviouslyAccepted' },
        { invocationId, status: 'PreviouslyAccepted' },
      ]);
      await waitingForApproval(key);
      const answers = (await Promise.all([
        call(key, 'answer', { name: APPROVAL, value: 'yes' }),
        call(key, 'answer', { name: APPROVAL, value: 'no' }),
      ])) as { accepted: boolean }[];
      expect(answers.map(({ accepted }) => accepted).sort()).toEqual([false, true]);
      await sender().send(key, APPROVAL, 'later');
      const run = await outcome(key);
      await second.kill();
      const refunds = effectsOf(effects).filter((effect) => effect.includes(' refund '));
      expect(refunds).toHaveLength(1);
      const answer = answers[0]?.accepted === true ? 'yes' : 'no';
      expect(refunds).toEqual([`2 refund ${run.runId}:use-refund ${JSON.stringify(answer)}`]);
      expect(effectsOf(effects).filter((effect) => effect.includes(' charge '))).toEqual([
        `1 charge ${run.runId}:use-charge`,
        `2 charge ${run.runId}:use-charge`,
      ]);
    });
  });
});
