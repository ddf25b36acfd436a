import type { JsonObject } from '../chain/call.js';
import { invalidRequest, type GatewayError } from '../http/errors.js';

/**
 * Refusing, by name, a reference-format field the gateway does not read: a translation would
 * drop it unseen. Shared by the chat ingress (chat and legacy bodies) and the embeddings reader.
 */

/** The 400 of a field a translation would drop unseen; `what` says what kind of parameter it is not. */
export const unknownParameter = (field: string, what: string): GatewayError =>
  invalidRequest(`${field} is not ${what} the gateway knows for this model; it is refused rather than dropped.`, field);

/**
 * For another body a vendor translation reads (legacy completions, embeddings): refuses the
 * first field not among `known`, as the chat ingress does for a chat body. Null values ask nothing.
 */
export function refuseUnknownFields(body: JsonObject, known: ReadonlySet<string>, what: string): void {
  for (const [field, value] of Object.entries(body)) {
    if (value !== null && !known.has(field)) throw unknownParameter(field, what);
  }
}
