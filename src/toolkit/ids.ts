/**
 * Ids the gateway mints for what it answers with: a reply, a tool call a vendor left unnamed, a
 * stored response (time-ordered, so a store keyed by them appends). Used by the ingress formats and
 * by translators whose vendor omits an id.
 */

export { mintId, mintTimedId } from '../reference/ids.js';
