import type { Call } from '../chain/call.js';
import type { Chain } from '../chain/chain.js';
import type { BodyReader, HeldBody } from '../http/body-reader.js';
import type { Store } from '../store/store.js';

/**
 * Gatekeeping, in the contract's order: the edge's 413 from a declared length, the checks that
 * need only the headers (the key: 401) before a single body byte is buffered, then the body,
 * then the chain's request hooks (body 400, model 404, allowlist 403), then the store steps they
 * queued (rate cap 429, ceiling 402: one round trip for both, src/chain/admission-steps.ts).
 * A hook or a step's verdict refuses by throwing. `held` is told of the body once read: its share
 * of the bytes all calls may hold is the caller's to release when the call ends.
 */
export async function admit(call: Call, chain: Chain, body: BodyReader, store: Store, held: (body: HeldBody) => void): Promise<void> {
  const post = call.endpoint.method === 'POST';
  if (post) body.checkDeclaredLength(call.req);
  await chain.onHeaders(call);
  if (post) {
    const read = await body.read(call.req, call.res);
    held(read);
    call.receiveBody(read.bytes);
  }
  await chain.onRequest(call);
  await call.admission.run(store);
}
