import { RESPONSE_CACHE_STATE } from '../../plugins/response-cache/store/state.js';
import type { KeptAnswer } from '../../src/plugin-api.js';
import { contract } from '../helpers/store-backends.js';

/**
 * The store contract for the response cache's entries (plugins/response-cache/store/): per key and
 * request hash, an expiry, a byte bound per key that evicts the oldest, a prune — on SQLite and
 * PostgreSQL, one instance's entries read by another.
 */

const answer = (text: string, stream = false): KeptAnswer => ({
  stream,
  pieces: stream ? [`data: ${text}\n\n`, 'data: [DONE]\n\n'] : [text],
  usage: { promptTokens: 3, completionTokens: 4 },
});
/** The bytes an entry of `answer` counts against its key's bound. */
const size = (kept: KeptAnswer): number => Buffer.byteLength(JSON.stringify({ stream: kept.stream, pieces: kept.pieces, usage: kept.usage }));

contract('response cache: kept per key and hash until it expires, replaced, bounded per key oldest first, pruned; shared', async (t, db) => {
  const [a, b] = [await (await db.open()).extend(RESPONSE_CACHE_STATE), await (await db.open()).extend(RESPONSE_CACHE_STATE)];
  const big = 1_000_000;
  await a.put({ keyId: 'key_a', hash: 'h1', answer: answer('one'), storedAt: 100, expiresAt: 1_000 }, big);
  await a.put({ keyId: 'key_a', hash: 'h2', answer: answer('two', true), storedAt: 200, expiresAt: 1_000 }, big);
  t.same(await b.get('key_a', 'h1', 500), answer('one'), 'another instance reads it');
  t.same(await b.get('key_a', 'h2', 500), answer('two', true), 'a stream keeps its frames');
  t.equal(await b.get('key_b', 'h1', 500), null, "another key's entries are its own");
  t.equal(await b.get('key_a', 'h1', 1_000), null, 'expired at its expiry');
  await b.put({ keyId: 'key_a', hash: 'h1', answer: answer('uno'), storedAt: 300, expiresAt: 2_000 }, big);
  t.same(await a.get('key_a', 'h1', 1_500), answer('uno'), 'a later answer replaces it');
  t.equal(await a.prune(1_000), 1, 'the expired one is pruned');

  // The bound: room for two entries of this size; a third evicts the oldest.
  const each = size(answer('x0'));
  for (const [i, storedAt] of [
    [0, 10_000],
    [1, 10_001],
    [2, 10_002],
  ] as const) {
    await a.put({ keyId: 'key_c', hash: `b${i}`, answer: answer(`x${i}`), storedAt, expiresAt: 99_000 }, 2 * each);
  }
  t.equal(await b.get('key_c', 'b0', 20_000), null, 'the oldest was evicted');
  t.same(await b.get('key_c', 'b1', 20_000), answer('x1'));
  t.same(await b.get('key_c', 'b2', 20_000), answer('x2'));
  t.same(await b.get('key_a', 'h1', 1_500), answer('uno'), "another key's entries are not evicted");
});
