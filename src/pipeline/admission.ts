import type { Call } from '../chain/call.js';
import type { Chain } from '../chain/chain.js';
import { isResolved, type AdmittedCall, type ResolvedCall } from '../chain/phases.js';
import { GatewayError, invalidRequest } from '../http/errors.js';
import type { BodyReader, HeldBody } from '../http/body-reader.js';
import type { Store } from '../store/store.js';

/**
 * Gatekeeping, in the contract's order: the edge's 413 from a declared length, the checks that
 * need only the headers (the key: 401) before a single body byte is buffered, then the body,
 * then the body's check by its format (400), the chain's request hooks (model 404, allowlist 403),
 * after which the call's model is resolved, then the store steps they
 * queued (rate cap 429, ceiling 402: one round trip for both, src/chain/admission-steps.ts).
 * A hook or a step's verdict refuses by throwing. Returns the admitted call, or null for an
 * endpoint the gateway answers itself (it names no model). `held` is told of the body once read: its share
 * of the bytes all calls may hold is the caller's to release when the call ends.
 */
export async function admit(call: Call, chain: Chain, body: BodyReader, store: Store, held: (body: HeldBody) => void): Promise<AdmittedCall | null> {
  const post = call.endpoint.method === 'POST';
  if (post) body.checkDeclaredLength(call.req);
  await chain.onHeaders(call);
  if (post) {
    const read = await body.read(call.req, call.res);
    held(read);
    call.receiveBody(read.bytes);
  }
  if (call.endpoint.upstream) {
    if (call.rawJson && call.rawJson.length >= PARSE_IN_STEPS_FROM_BYTES) await call.parseBodyInSteps();
    checkBody(call);
  }
  await chain.onRequest(call);
  const resolved = call.endpoint.upstream ? resolvedOrRefused(call) : null;
  await call.admission.run(store);
  return resolved;
}

/**
 * Bodies from this size are parsed in steps that let other calls' streams run between them (a
 * step on a body this size holds the event loop for about half a millisecond on the bench's machine).
 */
export const PARSE_IN_STEPS_FROM_BYTES = 128 * 1024;

/** An upstream call after the request hooks: its model is resolved, or the chain lacks the plugin that does it. */
function resolvedOrRefused(call: Call): ResolvedCall {
  if (!isResolved(call)) throw new GatewayError(500, `No plugin resolved the model of ${call.endpoint.path}: enable model-normalise.`);
  return call;
}

/** The body, checked by the format that owns it (400 naming the field), and the stream flags it asks for. */
function checkBody(call: Call): void {
  const problem = call.endpoint.format.check(call);
  if (problem) throw invalidRequest(problem.message, problem.param);
  const { stream, includeUsage } = call.outline;
  call.stream = stream;
  call.includeUsage = includeUsage;
}
