/**
 * The core's one internal door: what the package's own layers above the core (the built-in middleware, the agent
 * kit, the AI SDK adapter, the test kit) need from it beyond the public list of `index.ts`, and users never call.
 * Nothing here is exported by an entry point; `npm run lint` refuses an import of any other core file from above.
 *
 * Two kinds of names pass through it:
 * - the fast path (`fast-path/index.ts` states its contract): the serial async generator the agent's model stream is
 *   built on, the pass-through generator the agent's run and turn loop hand their stage invokes' events to, the drain
 *   of a run's last event, the abort controller whose flag an invoke reads instead of its signal, and the lineage of
 *   a history's arrays that the AI SDK adapter reads instead of comparing them;
 * - the hooks of the core's own machinery that another layer extends: the error tables each subsystem adds its codes
 *   to, the schema check `validate` shares with the stages, the completion report of a state draft, and the handler
 *   name and registrar a bundle's setup uses.
 *
 * @packageDocumentation
 */
export { mapRegistrar } from './bundle';
export type { ErrorCodeEntry, ErrorTable } from './errors';
export {
  Delegation,
  lastEvent,
  OwnedAbortController,
  PassThroughGenerator,
  recordExtension,
  SerialAsyncGenerator,
  sharedStart,
} from './fast-path';
export type { Answer, DelegatingGenerator } from './fast-path';
export { handlerName } from './registration';
export { isSchema, parseWithSchema } from './schema';
export { reportCompletion } from './state';
export type { CompletionReporting } from './state';
