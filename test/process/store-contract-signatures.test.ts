import { withPluginStates } from '../helpers/plugin-state.js';
import { contract } from '../helpers/store-backends.js';

/**
 * The store contract, part 10: beta's thought signatures (SignatureStore, src/store/signatures.ts),
 * by key and tool-call id, with the deployment that issued each and an expiry — on SQLite and PostgreSQL.
 */

contract('signatures: kept per key and call id until they expire, replaced by a later one, pruned; another instance reads them', async (t, db) => {
  const [a, b] = [await withPluginStates(await db.open()), await withPluginStates(await db.open())];
  await a.signatures.put([], 1_000);
  await a.signatures.put(
    [
      { keyId: 'key_a', callId: 'call_1', signature: 'first', deployment: 'east' },
      { keyId: 'key_a', callId: 'call_2', signature: 'two', deployment: null },
      { keyId: 'key_b', callId: 'call_1', signature: "b's", deployment: 'west' },
      { keyId: 'key_a', callId: 'call_1', signature: 'SIG1', deployment: 'west' },
    ],
    1_000,
  );
  t.same(
    await b.signatures.get('key_a', ['call_1', 'call_2', 'call_3'], 0),
    new Map([
      ['call_1', { signature: 'SIG1', deployment: 'west' }],
      ['call_2', { signature: 'two', deployment: null }],
    ]),
    'the last of a batch wins, with its deployment; unknown ids absent',
  );
  t.same(
    await b.signatures.get('key_b', ['call_1', 'call_2'], 0),
    new Map([['call_1', { signature: "b's", deployment: 'west' }]]),
    "another key's signatures are its own",
  );
  t.same(await b.signatures.get('key_a', [], 0), new Map());
  await b.signatures.put([{ keyId: 'key_a', callId: 'call_2', signature: 'renewed', deployment: 'east' }], 5_000);
  const renewed = new Map([['call_2', { signature: 'renewed', deployment: 'east' }]]);
  t.same(await a.signatures.get('key_a', ['call_1', 'call_2'], 1_000), renewed, 'expired at 1 000: gone; the replaced one lives on, its deployment too');
  t.equal(await a.signatures.prune(1_000), 2, 'the two expired ones are pruned');
  t.same(await a.signatures.get('key_a', ['call_2'], 4_999), renewed);
});
