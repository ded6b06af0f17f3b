/**
 * The installed package's type declarations as a TypeScript consumer
 * compiles them: every entry point, under `node10` (through `typesVersions`),
 * `node16` (from ESM and from CommonJS) and `bundler` module resolution, with
 * `skipLibCheck: false`, so the declarations themselves are checked, and
 * without the optional peers `@opentelemetry/api`, `@ai-sdk/provider`,
 * `@restatedev/restate-sdk` and `@modelcontextprotocol/sdk` installed (the informative note of MW-204), and
 * without immer, which the package builds in, types included.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../readme-blocks';
import { consumer } from './consumer';

/** A consumer using a value and a type of every entry point, the tracing, shared-store and agent loop adapter types included. */
const source = `import { createStage, MiddlewareRegistry, type WrapHandler } from 'staged-middleware';
import { Agent, InvokeModelStage, type Message } from 'staged-middleware/agent';
import { fromAiSdk, type AiSdkLanguageModel } from 'staged-middleware/ai-sdk';
import { mcpTools, type McpClient } from 'staged-middleware/mcp';
import { cache, isRetryableError, rateLimit, retry, tracing, type CacheStore, type SharedLimiter, type TracingOptions } from 'staged-middleware/middleware';
import { runStage, ScriptedModel, scriptedTerminal, textTurn } from 'staged-middleware/testing';
import { formatReport, libraryTarget, referenceAgentAdapter, runConformance, type AgentLoopAdapter } from 'staged-middleware/conformance';
import { restateWaitSender, type RestateAgentRun } from 'staged-middleware/durable/restate';

const AskStage = createStage<{ question: string }, string>('ask');
const shout: WrapHandler<{ question: string }, string> = async function* shout(context, next) {
  for await (const event of next(context)) yield event.toUpperCase();
};
const registry = new MiddlewareRegistry();
registry.add(AskStage.Wrap, shout);
registry.add(AskStage.Wrap, retry({ retryOn: (error) => isRetryableError(error) }));
const store: CacheStore = { get: () => undefined, set: () => undefined };
const limiter: SharedLimiter = { consume: () => Promise.resolve() };
registry.add(InvokeModelStage.Wrap, cache({ key: (context) => String(context.messages.length), store }));
registry.add(InvokeModelStage.Wrap, rateLimit({ limiter }));
const tracingOptions: TracingOptions = { tracer: { startSpan: () => { throw new Error('not here'); } } };
registry.instrument(tracing(tracingOptions));
const history: readonly Message[] = new Agent({ model: new ScriptedModel([textTurn('hi')]), registry }).messages;
const adapter: AgentLoopAdapter = { ...referenceAgentAdapter, name: 'mine', capabilities: ['systemPrompt', 'snapshots'] };
const report: Promise<string> = runConformance([], libraryTarget({ agentLoop: adapter })).then(formatReport);
const languageModel: AiSdkLanguageModel = { specificationVersion: 'v3', provider: 'p', modelId: 'm', doStream: () => { throw new Error('not here'); } };
const answered: Promise<void> = restateWaitSender({ ingress: 'http://127.0.0.1:8080', workflow: 'support' }).send('ticket-7', 'executeTool:t1:approve', 'yes');
const run: RestateAgentRun | undefined = undefined;
const mcpClient: McpClient = { listTools: () => Promise.resolve({ tools: [] }), callTool: () => Promise.resolve({ content: [] }) };
const toolset = mcpTools({ client: mcpClient });
export const checked = [answered, run, toolset, runStage(AskStage, { context: { question: 'why?' }, terminal: scriptedTerminal([['because']]) }), history, report, new Agent({ model: fromAiSdk(languageModel) })];
`;

/** One TypeScript configuration per module resolution, with the files it compiles. */
const resolutions = {
  // zod's own declarations (which the conformance entry point's case and protocol types name) default-import
  // CommonJS modules, which node10 resolution type-checks only with synthetic default imports allowed.
  node10: {
    compilerOptions: { module: 'commonjs', moduleResolution: 'node10', allowSyntheticDefaultImports: true },
    files: ['consumer.ts'],
  },
  node16: { compilerOptions: { module: 'node16', moduleResolution: 'node16' }, files: ['consumer.mts', 'consumer.cts'] },
  bundler: { compilerOptions: { module: 'esnext', moduleResolution: 'bundler' }, files: ['consumer.ts'] },
};

describe('type declarations of the installed package', () => {
  // immer is built into the package, its types into the declarations: it is no dependency.
  it.each(['@opentelemetry/api', '@ai-sdk/provider', 'ai', '@restatedev/restate-sdk', '@modelcontextprotocol/sdk', 'immer'])(
    'has no %s installed beside it',
    (name) => {
      expect(existsSync(join(consumer, 'node_modules', ...name.split('/')))).toBe(false);
    },
  );

  it.each(Object.keys(resolutions) as (keyof typeof resolutions)[])(
    'compile under %s module resolution with skipLibCheck false',
    (resolution) => {
      const directory = join(consumer, `types-${resolution}`);
      mkdirSync(directory, { recursive: true });
      const { compilerOptions, files } = resolutions[resolution];
      for (const file of files) writeFileSync(join(directory, file), source);
      const tsconfig = {
        compilerOptions: { ...compilerOptions, target: 'es2022', strict: true, skipLibCheck: false, noEmit: true, types: [] },
        files,
      };
      writeFileSync(join(directory, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
      let output = '';
      try {
        execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', directory], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout);
      }
      expect(output).toBe('');
    },
  );
});
