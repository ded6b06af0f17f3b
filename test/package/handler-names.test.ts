/**
 * The built-in handlers keep their documented names in the published builds
 * (section 4 of the spec; a bundler may rename a function whose name is
 * taken in the bundle's scope). The names are those of the table of generic
 * middleware in docs/middleware.md, each factory's handler named after it, except
 * `validate`, whose handlers are `validateContext` and `validateResult`
 * (MW-092), and the test kit's `scriptedTerminal`; and those of the agent
 * kit's middleware (section 5c), listed in the page's `Agent middleware`
 * section.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isValue, listedExports, REPORTS } from '../../scripts/api-report';
import { markdownSection } from '../readme-blocks';
import { runScript } from './consumer';

/** The names in the first column of the table rows of `text`. */
function firstColumn(text: string): string[] {
  return text
    .split('\n')
    .map((line) => /^\| `(\w+)` \|/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** The first column of the table of generic middleware (`/middleware`) in docs/middleware.md. */
const documented = firstColumn(markdownSection('docs/middleware.md', 'Generic middleware'));
/** The first column of the table of the agent kit's middleware (`/agent`) in docs/middleware.md. */
const documentedAgent = firstColumn(markdownSection('docs/middleware.md', 'Agent middleware'));

/** Exports of `/middleware` that are not middleware factories (a store, a constant, retry's default classification). */
const notFactories = ['LruStore', 'TRACING_ATTRIBUTES', 'isRetryableError'];

/** Wrap handler factories: registered with `add`, named after the factory. */
const wrapFactories = ['retry', 'fallback', 'regenerate', 'timeout', 'rateLimit', 'cache'];

/** The `explain()` text of one chain (MW-051) on the stage `probe`. */
function explained(lines: readonly string[]): string {
  return ['stage "probe"', ...lines].join('\n');
}

/** Where each built-in handler's name shows, as the docs say it does. */
function expectedNames(): Record<string, unknown> {
  const expected: Record<string, unknown> = {};
  for (const name of wrapFactories) {
    expected[name] = {
      name,
      describe: [name],
      explain: explained([`└─ wrap    1. ${name}`, '   └─ terminal']),
      calls: { [name]: { phase: 'wrap', activations: 1, nextCalls: 1 } },
      error: null,
    };
  }
  expected.validate = {
    name: 'validate',
    handlers: ['validateContext', 'validateResult'],
    describe: ['validateContext', 'validateResult'],
    explain: explained([
      '├─ input   1. validateContext  [bundle validate]',
      '├─ output  1. validateResult  [bundle validate]',
      '└─ terminal',
    ]),
    calls: {
      validateContext: { phase: 'input', activations: 1, nextCalls: 0 },
      validateResult: { phase: 'output', activations: 1, nextCalls: 0 },
    },
    error: null,
  };
  expected.tracing = { name: 'tracing' };
  expected.logging = { name: 'logging' };
  expected.scriptedTerminal = { name: 'scriptedTerminal' };
  // The agent kit's (MW-167 – MW-169, MW-173, MW-174): bundles named after the factory (a sub-agent's after its tool too), handlers after it.
  expected.compaction = {
    name: 'compaction',
    describe: ['compaction'],
    explain: [
      'stage "compressContext"',
      '└─ wrap    1. compaction  [bundle compaction]',
      '   └─ terminal',
      'provides "staged-middleware.agent.context-budgets"',
      '└─ 1. (no id)  [bundle compaction]',
    ].join('\n'),
  };
  expected.todoList = {
    name: 'todoList',
    describe: ['todoList'],
    explain: ['stage "invokeModel"', '├─ input   1. todoList  [bundle todoList]', '└─ terminal'].join('\n'),
  };
  expected.subagent = {
    name: 'subagent:helper',
    describe: ['subagent'],
    explain: [
      'stage "executeTool"',
      '└─ wrap    1. subagent  [bundle subagent:helper]',
      '   └─ terminal',
      'provides "staged-middleware.agent.tools"',
      '└─ 1. helper  [bundle subagent:helper]',
    ].join('\n'),
  };
  // The call limits (MW-271, MW-272): a bundle per limit, each handler named after the factory.
  expected.modelCallLimit = {
    name: 'modelCallLimit',
    describe: ['modelCallLimit'],
    explain: ['stage "invokeModel"', '└─ wrap    1. modelCallLimit  [bundle modelCallLimit]', '   └─ terminal'].join('\n'),
  };
  expected.toolCallLimit = {
    name: 'toolCallLimit:search',
    describe: ['toolCallLimit'],
    explain: ['stage "executeTool"', '└─ wrap    1. toolCallLimit  [bundle toolCallLimit:search]', '   └─ terminal'].join('\n'),
  };
  // pii (MW-273): one bundle, its handler on each place named pii.
  expected.pii = {
    name: 'pii',
    describe: ['pii', 'pii'],
    explain: ['stage "invokeModel"', '├─ input   1. pii  [bundle pii]', '└─ wrap    1. pii  [bundle pii]', '   └─ terminal'].join('\n'),
  };
  expected.afterToolCall = {
    name: 'afterToolCall',
    describe: ['afterToolCall'],
    explain: ['stage "executeTool"', '├─ output  1. afterToolCall', '└─ terminal'].join('\n'),
  };
  expected.checkFinalAnswer = {
    name: 'checkFinalAnswer',
    describe: ['checkFinalAnswer'],
    explain: ['stage "invokeModel"', '└─ wrap    1. checkFinalAnswer', '   └─ terminal'].join('\n'),
  };
  return expected;
}

/**
 * What every exported factory's product is named, as the documentation and TSDoc give the names: a handler under its
 * factory's name (`turnAction`'s under its decider's, `turnAction` for an anonymous one), a bundle under its own
 * and its handlers' (a sub-agent's bundle after its tool too, MW-169), an instrumentation and a terminal under
 * the factory's. `consumer/observe.cjs` calls each factory and classifies every other exported function.
 */
function factoryNames(): Record<string, unknown> {
  const handler = (name: string): Record<string, unknown> => ({ function: name, describe: [name] });
  return {
    './agent afterToolCall': handler('afterToolCall'),
    './agent approvalPolicy': handler('approvalPolicy'),
    './agent checkFinalAnswer': handler('checkFinalAnswer'),
    './agent clearToolResults': handler('clearToolResults'),
    './agent compaction': { bundle: 'compaction', describe: { compressContext: ['compaction'] } },
    './agent dynamicSystemPrompt': handler('dynamicSystemPrompt'),
    './agent defineMiddleware': { bundle: 'defined', describe: { invokeModel: ['defined.model.input'] } },
    './agent errorsAsAnswers': handler('errorsAsAnswers'),
    './agent maxTurns': handler('maxTurns'),
    './agent prepareTurn': handler('prepareTurn'),
    './agent promptCaching': handler('promptCaching'),
    './agent stopAfterTool': handler('stopAfterTool'),
    './agent stopWhen': handler('stopWhen'),
    './agent subagent': { bundle: 'subagent:helper', describe: { executeTool: ['subagent'] } },
    './agent todoList': { bundle: 'todoList', describe: { invokeModel: ['todoList'] } },
    './agent pii': { bundle: 'pii', describe: { invokeModel: ['pii', 'pii'], executeTool: ['pii'] } },
    './agent modelCallLimit': { bundle: 'modelCallLimit', describe: { invokeModel: ['modelCallLimit'], turn: ['modelCallLimit'] } },
    './agent toolCallLimit': {
      bundle: 'toolCallLimit:search',
      describe: { invokeModel: ['toolCallLimit'], executeTool: ['toolCallLimit'], turn: ['toolCallLimit'] },
    },
    './agent toolEmulator': handler('toolEmulator'),
    './agent toolSelector': handler('toolSelector'),
    './agent turnAction': handler('turnAction'),
    './middleware cache': handler('cache'),
    './middleware fallback': handler('fallback'),
    './middleware logging': { instrumentation: 'logging' },
    './middleware rateLimit': handler('rateLimit'),
    './middleware regenerate': handler('regenerate'),
    './middleware retry': handler('retry'),
    './middleware timeout': handler('timeout'),
    './middleware tracing': { instrumentation: 'tracing' },
    './middleware validate': { bundle: 'validate', describe: { probe: ['validateContext', 'validateResult'] } },
    './durable durableSteps': { bundle: 'durableSteps', describe: { invokeModel: ['durableModelStep'], executeTool: ['durableToolStep'] } },
    './testing scriptedTerminal': { terminal: 'scriptedTerminal' },
  };
}

describe('built-in handlers of the installed package', () => {
  describe('the documented names', () => {
    it('cover every middleware factory the package exports', () => {
      const report = readFileSync(join(REPORTS, 'middleware.api.md'), 'utf8');
      const exported = listedExports(report)
        .filter((item) => isValue(item.kind))
        .map((item) => item.name);
      expect([...documented].sort()).toEqual(exported.filter((name) => !notFactories.includes(name)).sort());
      // A factory added to the table needs its names observed (consumer/observe.cjs) and expected here.
      expect(documented.filter((name) => !(name in expectedNames()))).toEqual([]);
    });

    it('cover every agent middleware factory docs/middleware.md lists, each an export of /agent', () => {
      const exported = listedExports(readFileSync(join(REPORTS, 'agent.api.md'), 'utf8'))
        .filter((item) => isValue(item.kind))
        .map((item) => item.name);
      expect([[...documentedAgent].sort(), documentedAgent.filter((name) => !exported.includes(name))]).toEqual([
        [
          'afterToolCall',
          'approvalPolicy',
          'checkFinalAnswer',
          'clearToolResults',
          'compaction',
          'dynamicSystemPrompt',
          'maxTurns',
          'modelCallLimit',
          'pii',
          'prepareTurn',
          'promptCaching',
          'stopAfterTool',
          'stopWhen',
          'subagent',
          'todoList',
          'toolCallLimit',
          'toolEmulator',
          'toolSelector',
        ],
        [],
      ]);
    });
  });

  describe.each([
    ['ESM', 'esm.mjs'],
    ['CommonJS', 'cjs.cjs'],
  ])('in the %s build', (_format, script) => {
    const observed = (): { handlers: Record<string, unknown>; factories: unknown } =>
      JSON.parse(runScript(script)) as { handlers: Record<string, unknown>; factories: unknown };

    it('are named as documented: the function name, describe(), explain() and the runStage calls', () => {
      expect(observed().handlers).toEqual(expectedNames());
    });

    it('are named after their factory for every exported factory of every entry point', () => {
      expect(observed().factories).toEqual({ names: factoryNames(), unclassified: [] });
    });
  });
});
