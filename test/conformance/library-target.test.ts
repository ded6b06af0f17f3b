import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentLoopTarget, libraryTarget, referenceAgentAdapter } from '../../conformance/index';
import { caseFiles } from './case-files';

const begin = { op: 'chain.begin', case: 'x', stage: { name: 's', guard: true } } as const;
const script = { steps: [] };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('libraryTarget', () => {
  describe('hello', () => {
    it('claims every kind, the nine built-ins, the reference agent and the scenarios its host allows', async () => {
      expect(await libraryTarget({ host: {} }).request({ op: 'hello', protocol: 1 })).toEqual({
        protocol: 1,
        name: 'staged-middleware',
        kinds: ['chain', 'reliability', 'agent'],
        builtins: ['retry', 'fallback', 'regenerate', 'timeout', 'rateLimit', 'cache', 'validate', 'tracing', 'logging'],
        scenarios: [
          'queued-calls',
          'guard-throws',
          'throw-when-called',
          'concurrent-invokes',
          'concurrent-writeback',
          'deep-chain',
          'nested-invokes',
          'handed-out-values',
        ],
        capabilities: [...referenceAgentAdapter.capabilities],
      });
    });

    it('claims the abandoned scenario where the runtime exposes gc(), and the second copy where the host loads one', async () => {
      vi.stubGlobal('gc', () => undefined);
      const claims = (await libraryTarget({ host: { loadCopies: () => Promise.reject(new Error('unused')) } }).request({
        op: 'hello',
        protocol: 1,
      })) as { scenarios: string[] };
      expect(claims.scenarios.filter((scenario) => scenario === 'abandoned' || scenario === 'second-copy')).toEqual([
        'abandoned',
        'second-copy',
      ]);
    });

    it('names the agent loop it runs the agent cases on', async () => {
      const adapter = { ...referenceAgentAdapter, name: 'my loop', capabilities: ['systemPrompt' as const] };
      expect(await libraryTarget({ agentLoop: adapter }).request({ op: 'hello', protocol: 1 })).toMatchObject({
        name: 'staged-middleware with my loop',
        capabilities: ['systemPrompt'],
      });
    });
  });

  describe('a request it cannot carry out', () => {
    it.each([
      ['a chain request before chain.begin', [{ op: 'chain.next' }], 'chain.next came before chain.begin'],
      ['a pull before the invoke', [begin, { op: 'chain.next' }], 'the runner pulled before a chain.invoke with consumer "iterate"'],
      ['an unknown label', [begin, { op: 'chain.dispose', label: 'nothing', times: 1 }], 'the case names the unknown label "nothing"'],
      [
        'an unknown stage',
        [begin, { op: 'chain.add', scope: 'parent', phase: 'wrap', stage: 'other', handler: script }],
        'the case names the unknown stage "other"',
      ],
      [
        'an unknown built-in',
        [begin, { op: 'chain.use', scope: 'parent', builtin: 'teleport', options: {} }],
        'Unknown built-in middleware "teleport" in a conformance case. Known: retry, fallback, regenerate, timeout, rateLimit, cache, validate, tracing, logging.',
      ],
      [
        'a scenario its host cannot run',
        [{ op: 'reliability.run', case: caseFiles.find(({ raw }) => raw.scenario === 'second-copy')?.raw }],
        'This scenario needs a way to load a second copy of the library, which the host did not provide.',
      ],
    ])('answers %s with a failure saying why', async (_name, requests, failure) => {
      const target = libraryTarget({ host: {} });
      const replies: unknown[] = [];
      for (const request of requests) replies.push(await target.request(request as never));
      expect(replies.at(-1)).toEqual({ failure });
    });
  });

  describe('a chain case that starts with a bad stage', () => {
    it('reports the error of createStage and still ends the case', async () => {
      const target = libraryTarget();
      const replies = [await target.request({ ...begin, stage: { name: '' } }), await target.request({ op: 'chain.end' })];
      expect(replies).toEqual([
        {
          error: {
            code: 'ERR_INVALID_STAGE',
            genuine: true,
            message: expect.stringContaining('[ERR_INVALID_STAGE]'),
            thrownByCase: false,
            stage: '',
            phase: null,
            handler: null,
          },
        },
        { warnings: [], stateWrites: [], stateGets: 0, snapshotFrozen: false },
      ]);
    });
  });
});

describe('agentLoopTarget', () => {
  it('claims the agent kind and the capabilities of its adapter', async () => {
    expect(await agentLoopTarget(referenceAgentAdapter).request({ op: 'hello', protocol: 1 })).toEqual({
      protocol: 1,
      name: 'the reference Agent',
      kinds: ['agent'],
      capabilities: [...referenceAgentAdapter.capabilities],
    });
  });

  it('answers a request of another kind with a failure', async () => {
    expect(await agentLoopTarget(referenceAgentAdapter).request(begin)).toEqual({
      failure: 'an agent loop answers only hello and agent.run, not chain.begin',
    });
  });
});
