/**
 * JSON values a plugin did not write: telling an object from the rest, parsing an upstream's
 * JSON body (a 502 in the gateway's envelope when it is not JSON), and compiling a JSON Schema to
 * check a body with (an ingress's request schema, an admin route's body). Used by ingresses,
 * vendors and plugins with routes of their own.
 */

export { isObject } from '../reference/sequence.js';
export { parseUpstreamJson } from '../reference/upstream-json.js';
export { compileSchema } from '../config/validate.js';
