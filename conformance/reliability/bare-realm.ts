/**
 * The `bare-realm` reliability scenario (MW-204): the library in a realm with
 * the standard and web globals only, no `process` and no bundler define, as
 * a browser loading its ES modules through an import map, Cloudflare workerd
 * or Vercel's edge runtime have it. One registry invoke with a retry and an
 * Output handler, and one agent run with a scripted model and tool, whose
 * model state is an immer draft.
 *
 * Why the library is a parameter and this function uses nothing but its
 * parameter and the realm's standard globals: it must run inside the bare
 * realm, with that realm's copy of the library, so a host may evaluate its
 * source text there. The host makes the realm and loads the library into it
 * (`LibraryHost.runInBareRealm`): under vitest `src/` bundled and run in
 * edge-runtime; under the command line a Node.js realm of its own; the
 * packed-package tier the installed ESM build in edge-runtime, and the
 * integration tier the installed package in headless Chromium.
 */
import type { Json } from '../cases/case-base';
import type { AgentEntry, CoreEntry, MiddlewareEntry, TestingEntry } from './library-entries';

/** The library's entry points, as loaded in the bare realm. */
export interface LibraryEntries {
  /** `staged-middleware`. */
  readonly core: CoreEntry;
  /** `staged-middleware/agent`. */
  readonly agent: AgentEntry;
  /** `staged-middleware/middleware`. */
  readonly middleware: MiddlewareEntry;
  /** `staged-middleware/testing`. */
  readonly testing: TestingEntry;
}

/** Runs the scenario; the host adds `globals`, what loading and running defined on the realm's global object. */
export async function bareRealm({ core, agent: kit, middleware, testing }: LibraryEntries): Promise<Json> {
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- the events go into the Json result, and only a type alias, not an interface, has the implicit index signature Json needs
  type Chunk = { readonly type: 'text' | 'done'; readonly text: string };
  const ReplyStage = core.createStage<{ readonly prompt: string }, Chunk, Chunk>('reply', {
    isResult: (event): event is Chunk => event.type === 'done',
  });
  const registry = new core.MiddlewareRegistry();
  registry.add(ReplyStage.Wrap, middleware.retry({ backoff: () => 0 }));
  registry.add(ReplyStage.Output, (result) => result.update((draft) => void (draft.text = draft.text.toUpperCase())));
  const overloaded = Object.assign(new Error('overloaded'), { status: 503 });
  const chunks: Chunk[] = [
    { type: 'text', text: 'hel' },
    { type: 'done', text: 'hello' },
  ];
  const terminal = testing.scriptedTerminal([[testing.throws(overloaded)], chunks]);
  const events: Chunk[] = [];
  for await (const event of registry.invoke(ReplyStage, { prompt: 'hi' }, terminal)) events.push(event);

  const agentRegistry = new core.MiddlewareRegistry();
  agentRegistry.add(kit.InvokeModelStage.Wrap, middleware.retry({ backoff: () => 0 }));
  const tool = new testing.ScriptedTool({ name: 'lookup', outcomes: [{ value: 'shipped' }] });
  const model = new testing.ScriptedModel([
    testing.toolUseTurn([{ name: 'lookup', input: { order: 'A-1' } }]),
    testing.textTurn('Order A-1 has shipped.'),
  ]);
  const agent = new kit.Agent({ model, tools: [tool], registry: agentRegistry, modelState: { turns: 0 } });
  const result = await agent.invoke('Where is order A-1?');
  const last = agent.messages.at(-1)?.content[0];

  return {
    globalProcess: typeof (globalThis as { process?: unknown }).process,
    invoke: { events, terminalCalls: terminal.calls.length },
    agent: {
      stopReason: result.stopReason,
      messages: agent.messages.length,
      toolCalls: tool.calls.length,
      answer: last?.type === 'text' ? last.text : null,
    },
  };
}
