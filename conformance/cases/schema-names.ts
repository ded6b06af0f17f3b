/**
 * The names of the definitions of the committed JSON Schemas (`spec/*.schema.json`):
 * a schema that is reused or recursive becomes one definition named for what
 * it is (`JsonValue`, `WrapStep`, `ChainAddRequest`), never `__schema0`.
 *
 * zod extracts a schema into `$defs` when its metadata has an `id`. The ids
 * are kept here, in a registry of their own, rather than in zod's global
 * registry: what the schemas export must not depend on which modules a
 * process happened to load first.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { tool, turn } from './agent-doubles';
import { bundle, handler, hook } from './agent-handlers';
import { json } from './case-base';
import { errorExpectation } from './chain-operations';
import { inputStep, outputStep, terminalStep, wrapStep } from './chain-steps';

/** zod's metadata of each schema (its descriptions), with the `id` of the schemas named here. */
class NamedDefinitions extends z.core.$ZodRegistry<z.GlobalMeta> {
  private readonly names: ReadonlyMap<z.core.$ZodType, string>;

  constructor(names: ReadonlyMap<z.core.$ZodType, string>) {
    super();
    this.names = names;
  }

  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- an override keeps the generic signature of the registry's get
  override get<S extends z.core.$ZodType>(schema: S): z.GlobalMeta | undefined {
    const meta = z.globalRegistry.get(schema);
    const id = this.names.get(schema);
    if (id === undefined) return meta;
    return { ...meta, id };
  }
}

/** The schemas every format shares, by definition name. */
const SHARED: ReadonlyMap<z.core.$ZodType, string> = new Map<z.core.$ZodType, string>([
  [json, 'JsonValue'],
  [inputStep, 'InputStep'],
  [wrapStep, 'WrapStep'],
  [outputStep, 'OutputStep'],
  [terminalStep, 'TerminalStep'],
  [errorExpectation, 'ErrorExpectation'],
  [turn, 'AgentCaseTurn'],
  [tool, 'AgentCaseTool'],
  [handler, 'AgentCaseHandler'],
  [hook, 'AgentCaseHook'],
  [bundle, 'AgentCaseBundle'],
]);

/**
 * The metadata registry to give `z.toJSONSchema` (`metadata`): the shared
 * names, and `more` of the caller's own.
 */
export function namedDefinitions(more: ReadonlyMap<z.core.$ZodType, string> = new Map()): z.core.$ZodRegistry<z.GlobalMeta> {
  return new NamedDefinitions(new Map([...SHARED, ...more]));
}
