/**
 * Both builds of the installed package in one process, loaded in either
 * order (MW-200, MW-201): the `second-copy` conformance cases pass with the
 * ESM and the CommonJS builds as the two copies, and a registry of one build
 * runs the built-in middleware, script steps and results of the other, and
 * one build's tracing, given its agent kit's span conventions, names the other
 * build's agent spans in GenAI terms.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../readme-blocks';
import { runScript } from './consumer';

const casesDirectory = join(root, 'spec', 'cases');
const cases = readdirSync(casesDirectory)
  .map(
    (file) =>
      JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as { id: string; kind: string; scenario?: string; expect: unknown },
  )
  .filter((testCase) => testCase.kind === 'reliability' && testCase.scenario === 'second-copy');

/** What a registry of one build does with the other build's retry, `throws` step and MiddlewareResult (MW-084, MW-201). */
const mixedOutcome = { result: 'OK', terminalCalls: 2 };

/** The spans of one agent run traced by the other build's tracing, as they end: GenAI names for the standard stages (MW-190). */
const genAiSpans = ['invokeModel terminal', 'chat', 'turn terminal', 'turn', 'agentStream terminal', 'invoke_agent greeter'];

describe('the ESM and CommonJS builds in one process', () => {
  it('has second-copy cases to run', () => {
    expect(cases.length).toBeGreaterThanOrEqual(2);
  });

  describe.each([
    ['the ESM build loaded first', 'esm-then-cjs.mjs', 'esm'],
    ['the CommonJS build loaded first', 'cjs-then-esm.cjs', 'cjs'],
  ])('with %s', (_name, script, loadedFirst) => {
    it('are two builds that behave as one library', () => {
      const observed = JSON.parse(runScript(script)) as unknown;
      expect(observed).toEqual({
        loadedFirst,
        twoBuilds: true,
        sameTurnStage: true,
        cases: Object.fromEntries(cases.map((testCase) => [testCase.id, testCase.expect])),
        mixed: { 'esm registry, cjs middleware': mixedOutcome, 'cjs registry, esm middleware': mixedOutcome },
        traced: { 'esm agent, cjs tracing': genAiSpans, 'cjs agent, esm tracing': genAiSpans },
      });
    });
  });
});
