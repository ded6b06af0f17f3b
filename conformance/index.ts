/**
 * staged-middleware/conformance: the conformance runner. It runs the cases of
 * `spec/cases/` against this library, against an agent loop of your own
 * through an adapter, or against an implementation in another language over
 * a line-delimited JSON protocol, and reports per case and per rule. The
 * command line (`npx staged-middleware conformance`) reads the case files
 * and calls these functions.
 *
 * Every public name of this entry point is listed here.
 *
 * @example
 * ```ts
 * import { formatReport, libraryTarget, runConformance } from 'staged-middleware/conformance';
 *
 * const report = await runConformance(cases, libraryTarget());
 * console.log(formatReport(report));
 * ```
 *
 * @packageDocumentation
 */
export { runConformance } from './runner/run-conformance';
export type { RunOptions } from './runner/run-conformance';
export { formatReport } from './runner/format-report';
export type { AgentLoopVerdict, CaseOutcome, CaseStatus, ConformanceReport, Difference, RuleOutcome } from './runner/report-types';
export type { ConformanceTarget } from './runner/target';
export { agentLoopTarget, libraryTarget } from './library/library-target';
export type { LibraryTargetOptions } from './library/library-target';
export type { LibraryHost } from './reliability/scenarios';
export type { LibraryCopy } from './reliability/second-copy';
export { referenceAgentAdapter } from './agent/reference-adapter';
export type { AgentLoopAdapter, AgentLoopRun, AgentLoopSession, AgentLoopSetup } from './agent/adapter';
export { AGENT_CAPABILITIES } from './cases/agent-capabilities';
export type { AgentCapability } from './cases/agent-capabilities';
export { protocolTarget, serveProtocol } from './protocol/connection';
export type { LineConnection } from './protocol/connection';
export { PROTOCOL_VERSION } from './protocol/messages';
export type { BuiltinClaim, CaseKind, Claims, ProtocolOp, ProtocolRequest, ReplyOf, RequestOf } from './protocol/messages';
export type { AgentObservation } from './protocol/agent-observation';
export type { ErrorReport } from './protocol/error-report';
