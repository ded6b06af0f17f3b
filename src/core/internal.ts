/**
 * The core's one internal door: what the package's own layers above the core (the built-in middleware, the agent
 * kit, the AI SDK adapter, the test kit) need from it beyond the public list of `index.ts`, and users never call.
 * Nothing here is exported by an entry point; `npm run lint` refuses an import of any other core file from above.
 *
 * Two kinds of names pass through it:
 * - the fast path: the iterator and pull helpers that move events without the language's per-event promise
 *   (their contract is in their own files), which the agent's pass-through uses so that its loop costs what the
 *   core's does;
 * - the hooks of the core's own machinery that another layer extends: the error tables each subsystem adds its codes
 *   to, the schema check `validate` shares with the stages, the completion report of a state draft, and the handler
 *   name and registrar a bundle's setup uses.
 *
 * @packageDocumentation
 */
export { OwnedAbortController } from './abort-flag';
export { mapRegistrar } from './bundle';
export type { ErrorCodeEntry, ErrorTable } from './errors';
export { callSafely, pullFrom } from './layer';
export type { LayerGenerator } from './layer';
export { pullsThrough } from './native-layers';
export { QueuedIterator } from './queued-iterator';
export type { Answer } from './queued-iterator';
export { handlerName } from './registration';
export { isSchema, parseWithSchema } from './schema';
export { reportCompletion } from './state';
export type { CompletionReporting } from './state';
