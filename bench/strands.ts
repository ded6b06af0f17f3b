/**
 * The Strands Agents TypeScript SDK's middleware registry, loaded for the
 * side-by-side figures of `strands-figures.ts`, and the pieces both sides of
 * those figures share.
 *
 * Strands exports its stages from the package root but not its registry, so
 * the registry and the helpers its agent builds contexts with are loaded from
 * the files of the installed package (`dist/src/...`), the same files its own
 * agent imports, so that module-private values (the state store's symbols)
 * are the ones its classes use. The types below are the part of Strands'
 * declarations the figures call, written out, since the package's `exports`
 * hide the declaration files of those paths.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DELTAS, RESULT, type BenchContext, type BenchEvent, type DeltaEvent, type ResultEvent } from './fixtures';

/** What a Strands layer calls to run the rest of the chain: the context goes in explicitly. */
export type StrandsNext = (context: BenchContext) => AsyncGenerator<BenchEvent, ResultEvent | undefined, undefined>;

/** A Strands Wrap handler: a generator around `next(context)` that returns the chain's result. */
export type StrandsHandler = (context: BenchContext, next: StrandsNext) => AsyncGenerator<BenchEvent, ResultEvent | undefined, undefined>;

/** A Strands phase token (`stage.Input`, `stage.Wrap`, `stage.Output`). */
export interface StrandsPhase {
  /** Which phase. */
  readonly _phase: 'input' | 'wrap' | 'output';
}

/** A Strands stage token. */
export interface StrandsStage {
  /** The stage's name. */
  readonly name: string;
  /** Its Input phase. */
  readonly Input: StrandsPhase;
  /** Its Wrap phase. */
  readonly Wrap: StrandsPhase;
  /** Its Output phase. */
  readonly Output: StrandsPhase;
}

/** The methods of Strands' `MiddlewareRegistry` the figures call. */
export interface StrandsRegistry {
  /** Registers a Wrap handler. */
  add(stage: StrandsStage, handler: StrandsHandler): void;
  /** Registers an Input handler; returns the adapted handler `remove` takes. */
  addInput(phase: StrandsPhase, handler: (context: BenchContext) => BenchContext | Promise<BenchContext>): StrandsHandler;
  /** Registers an Output handler; returns the adapted handler `remove` takes. */
  addOutput(phase: StrandsPhase, handler: (result: ResultEvent) => ResultEvent | Promise<ResultEvent>): StrandsHandler;
  /** Removes the first registration of `handler`. */
  remove(stage: StrandsStage, handler: StrandsHandler): void;
  /** Composes the chain and calls it: the events are the chain's, the return value its result. */
  invoke(stage: StrandsStage, context: BenchContext, terminal: StrandsNext): AsyncGenerator<BenchEvent, ResultEvent | undefined, undefined>;
}

/** A Strands conversation message (the methods its agent calls when it builds a model context). */
export interface StrandsMessage {
  /** A deep copy, made through the message's JSON form. */
  clone(): StrandsMessage;
}

/** Strands' key-value state store (`StateStore`), which copies on every get and set. */
export interface StrandsStateStore {
  /** A deep copy of the value under `key`. */
  get(key: string): unknown;
  /** Stores a deep copy of `value`, checked to be JSON. */
  set(key: string, value: unknown): void;
  /** A deep copy of everything. */
  getAll(): Record<string, unknown>;
}

/** The parts of the Strands SDK the figures use. */
export interface Strands {
  /** `new MiddlewareRegistry()`. */
  readonly createRegistry: () => StrandsRegistry;
  /** `createStage(name)`. */
  readonly createStage: (name: string) => StrandsStage;
  /** A text message, as `new Message({ role, content: [new TextBlock(text)] })`. */
  readonly textMessage: (role: 'user' | 'assistant', text: string) => StrandsMessage;
  /** `new StateStore(initial)`. */
  readonly createStateStore: (initial: Record<string, unknown>) => StrandsStateStore;
  /** Its JSON deep copy (`types/json.js`), which its agent applies to the tool specs of every model context. */
  readonly deepCopy: <TValue>(value: TValue) => TValue;
  /** The copy of a system prompt its agent makes for every model context. */
  readonly cloneSystemPrompt: (prompt: string) => unknown;
  /** The state writeback its agent makes after every model call: the store takes the JSON form of another. */
  readonly loadState: (target: StrandsStateStore, source: StrandsStateStore) => void;
}

interface MiddlewareModule {
  MiddlewareRegistry: new () => StrandsRegistry;
  createStage: (name: string) => StrandsStage;
}

interface RootModule {
  Message: new (data: { role: 'user' | 'assistant'; content: unknown[] }) => StrandsMessage;
  TextBlock: new (text: string) => unknown;
  StateStore: new (initial: Record<string, unknown>) => StrandsStateStore;
}

interface SerializableModule {
  serializeStateSerializable: (store: StrandsStateStore) => unknown;
  loadStateSerializable: (store: StrandsStateStore, json: unknown) => void;
}

/** Loads Strands' registry and helpers from the installed package. */
export async function loadStrands(): Promise<Strands> {
  // The root entry's file: its directory holds the files its agent imports.
  const sources = dirname(createRequire(import.meta.url).resolve('@strands-agents/sdk'));
  const load = async <TModule>(path: string): Promise<TModule> => (await import(pathToFileURL(join(sources, path)).href)) as TModule;
  const middleware = await load<MiddlewareModule>('middleware/index.js');
  const root = await load<RootModule>('index.node.js');
  const json = await load<{ deepCopy: <TValue>(value: TValue) => TValue }>('types/json.js');
  const messages = await load<{ cloneSystemPrompt: (prompt: string) => unknown }>('types/messages.js');
  const serializable = await load<SerializableModule>('types/serializable.js');
  return {
    createRegistry: () => new middleware.MiddlewareRegistry(),
    createStage: middleware.createStage,
    textMessage: (role, text) => new root.Message({ role, content: [new root.TextBlock(text)] }),
    createStateStore: (initial) => new root.StateStore(initial),
    deepCopy: json.deepCopy,
    cloneSystemPrompt: messages.cloneSystemPrompt,
    loadState: (target, source) => {
      serializable.loadStateSerializable(target, serializable.serializeStateSerializable(source));
    },
  };
}

/**
 * Pulls an async generator to its end with `next()` and returns its result: the value it returned, or, when it
 * returned nothing, its last event. Both sides of a Strands figure are drained by it, since Strands hands the result
 * back as the generator's return value and ours as its last event.
 */
export async function drainToResult<TEvent, TReturn>(
  events: AsyncIterator<TEvent, TReturn, undefined>,
): Promise<TEvent | TReturn | undefined> {
  let last: TEvent | undefined;
  for (;;) {
    const pulled = await events.next();
    if (pulled.done === true) return pulled.value === undefined ? last : pulled.value;
    last = pulled.value;
  }
}

/** The cheapest Strands Wrap handler: hands the context on and passes every event and the result through. */
export function strandsPassThrough(): StrandsHandler {
  return async function* passThroughHandler(context, next) {
    return yield* next(context);
  };
}

/**
 * The Strands terminal of `streamingTerminal(deltas)`: the same events, and the result event returned as well, as a
 * Strands model call returns its message.
 */
export function strandsTerminal(deltas: number): StrandsNext {
  return async function* terminal() {
    for (let index = 0; index < deltas; index++) yield DELTAS[index & 4095] as DeltaEvent;
    yield RESULT;
    return RESULT;
  };
}
