import { Counter } from 'prom-client';
import { definePlugin, PluginConfigError, type Call, type KeptAnswer } from '../../src/plugin-api.js';
import { sessionOf } from '../../src/toolkit/ingress.js';
import { bearerToken } from '../../src/toolkit/secrets.js';
import { cachesOperation, requestHash, RESULT_HEADER, TTL_HEADER, ttlOf } from './match.js';
import { RESPONSE_CACHE_STATE } from './store/state.js';

const MIB = 1024 * 1024;
/** Expired entries are deleted at most this often, after an answer is kept and off its path. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

interface ResponseCacheConfig {
  max_bytes_per_key: number;
  max_entry_bytes: number;
}

/** What a call the cache missed keeps until its completion: where its answer goes, for how long, and the model it was matched on. */
interface Pending {
  hash: string;
  ttlMs: number;
  model: string;
}
const PENDING = Symbol('response-cache.pending');
type WithPending = Call & { [PENDING]?: Pending };

/**
 * `response-cache`: an exact-match cache of answers, off by default (docs/caching.md#response-cache).
 * On for a call when its key has a `cache_ttl_s` or the request sends `x-gateway-cache-ttl`
 * (0 turns it off for that request). Per key, an answer is found by the hash of its endpoint,
 * canonical model, stream flag and body less identifiers (match.ts); a hit is given again as the
 * caller first got it, a stream frame for frame, with `x-gateway-cache: hit`, no upstream and no
 * cost (its ledger row says `cached`); a miss says `miss`, and its answer — successful, whole, at
 * most `max_entry_bytes`, with none of the gateway's secrets in it — is kept in the store, which
 * every instance shares, until its time to live ends; a key's entries are bounded by
 * `max_bytes_per_key`, its oldest evicted. A call the cache is off for costs one header read.
 *
 * Stands after the rate cap (a hit still counts against the key's requests per minute) and before
 * the ceiling: a hit ends the request hooks, so the ceiling holds nothing for a call that costs
 * nothing, and a key at its ceiling still gets the answers it was charged for once.
 */
export default definePlugin({
  name: 'response-cache',
  needs: ['key', 'model'],
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      max_bytes_per_key: { type: 'integer', minimum: 1, default: 64 * MIB },
      max_entry_bytes: { type: 'integer', minimum: 1, default: 4 * MIB },
    },
  },
  async setup({ store, clock, log, metrics, families, upstreamCredential, config: gateway }, config: ResponseCacheConfig) {
    if (config.max_entry_bytes > config.max_bytes_per_key) {
      throw new PluginConfigError(`/max_entry_bytes (${config.max_entry_bytes}) is larger than /max_bytes_per_key (${config.max_bytes_per_key})`);
    }
    const cache = await store.extend(RESPONSE_CACHE_STATE);
    // Labels from fixed sets: the result, and the canonical model the answer was matched on. A
    // series exists once a call used the cache: a gateway whose callers never ask has none.
    const results = new Counter({
      name: 'gateway_response_cache_total',
      help: 'Calls that used the response cache, by result (hit: given again; miss: sent upstream), and the answers of misses kept (stored).',
      labelNames: ['result', 'model'] as const,
      registers: [metrics],
    });
    const credentials = [...families.flatMap((family) => upstreamCredential(family) ?? []), ...(gateway.admin.token ? [gateway.admin.token] : [])].filter(
      (secret) => secret !== '',
    );
    /** Whether an answer carries one of the gateway's secrets (a vendor's echo of a key): never kept, the store holds no secret in clear. */
    const carriesSecret = (call: Call, answer: KeptAnswer): boolean => {
      const caller = bearerToken(call.callerHeaders.authorization);
      const secrets = caller === undefined ? credentials : [...credentials, caller];
      return answer.pieces.some((piece) => secrets.some((secret) => piece.includes(secret)));
    };
    let prunedAt = Number.NEGATIVE_INFINITY;
    const pruneSoon = (now: number): void => {
      if (now - prunedAt < PRUNE_EVERY_MS) return;
      prunedAt = now;
      setImmediate(() => {
        cache
          .prune(now)
          .then((removed) => (removed > 0 ? log.info({ removed }, 'expired cached answers pruned') : undefined))
          .catch((error: unknown) => log.error({ err: error }, 'response cache prune failed'));
      });
    };
    return {
      async onRequest(call) {
        // The one check every call pays: no header and no key ttl, nothing more is done.
        if (call.callerHeaders[TTL_HEADER] === undefined && !call.key.cacheTtlS) return;
        const ttl = ttlOf(call);
        // A WebSocket message's answer continues the connection's own memory: not given again.
        if (ttl === 0 || !cachesOperation(call.endpoint.operation) || sessionOf(call) !== null) return;
        const hash = requestHash(call);
        const kept = await cache.get(call.key.id, hash, clock.now());
        if (kept !== null) {
          results.inc({ result: 'hit', model: call.model.id });
          call.res.setHeader(RESULT_HEADER, 'hit');
          call.answerWith(kept);
          return;
        }
        results.inc({ result: 'miss', model: call.model.id });
        call.res.setHeader(RESULT_HEADER, 'miss');
        (call as WithPending)[PENDING] = { hash, ttlMs: ttl * 1000, model: call.model.id };
        call.keepAnswer(config.max_entry_bytes);
      },
      // Before the last byte, in the ledger row's group commit: the next identical request finds it.
      // A cache that cannot keep an answer loses a later hit, never this call: its failure is logged.
      async onCompleteWrite(call) {
        const pending = (call as WithPending)[PENDING];
        const answer = call.keptAnswer;
        if (!pending || !call.key || answer === null || carriesSecret(call, answer)) return;
        const now = clock.now();
        const entry = { keyId: call.key.id, hash: pending.hash, answer, storedAt: now, expiresAt: now + pending.ttlMs };
        await cache.put(entry, config.max_bytes_per_key).then(
          () => results.inc({ result: 'stored', model: pending.model }),
          (error: unknown) => log.warn({ err: error }, 'an answer could not be cached'),
        );
        pruneSoon(now);
      },
    };
  },
});
