/**
 * A free loopback port, for the servers the integration tests start: the
 * one the demo's embedded PostgreSQL uses.
 */
export { freePort } from '../../examples/embedded-postgres';
