import type { IncomingHttpHeaders } from 'node:http';
import { definePlugin, GatewayError, type Call } from '../../src/plugin-api.js';
import {
  bearerToken,
  digestsEqual,
  hashSecret,
  IMPORTABLE_PREFIXES,
  importablePrefixOf,
  isCredentialHeader,
  NATIVE_KEY_PATTERN,
  repeatedCredential,
} from '../../src/toolkit/secrets.js';

/**
 * `auth`: `sl-` keys, as a Bearer token (or as `x-api-key` where the caller's format takes it).
 * Every presented token takes the same path — hashed, looked up, compared in constant time —
 * whatever its prefix; only then is the reason for a refusal chosen. Every refusal is 401
 * invalid_api_key (docs/api-contract.md#keys).
 */

const refuse = (message: string): GatewayError => new GatewayError(401, message);

function foreignAuthHeader(headers: IncomingHttpHeaders, apiKeyHeader: boolean): string | undefined {
  return Object.keys(headers).find(
    (name) => name !== 'authorization' && name !== 'cookie' && !(apiKeyHeader && name === 'x-api-key') && isCredentialHeader(name),
  );
}

/**
 * The key the caller presented: `Authorization: Bearer`, or, on endpoints of a format whose
 * convention it is (`Endpoint.apiKeyHeader`), `x-api-key`. Both at once must carry the same key:
 * the gateway never picks one of two keys. A header sent twice is refused for the same reason.
 */
function presentedKey(call: Call): string {
  const apiKeyHeader = call.endpoint.apiKeyHeader === true;
  const repeated =
    repeatedCredential(call.req.rawHeaders, 'Authorization') ?? (apiKeyHeader ? repeatedCredential(call.req.rawHeaders, 'x-api-key') : undefined);
  if (repeated) throw repeated;
  const how = apiKeyHeader ? 'x-api-key: sl-… or Authorization: Bearer sl-…' : 'Authorization: Bearer sl-…';
  const apiKey = apiKeyHeader ? call.callerHeaders['x-api-key'] : undefined;
  const keyHeader = typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : undefined;
  const header = call.callerHeaders.authorization;
  if (header === undefined || header.trim() === '') {
    if (keyHeader !== undefined) return keyHeader;
    const foreign = foreignAuthHeader(call.callerHeaders, apiKeyHeader);
    throw refuse(foreign ? `The ${foreign} header is not accepted; send the key as ${how}.` : `No API key: send ${how}.`);
  }
  const token = bearerToken(header);
  if (token === undefined) throw refuse('The Authorization header must use the Bearer scheme: Authorization: Bearer sl-….');
  if (keyHeader !== undefined && keyHeader !== token) {
    throw refuse('The Authorization and x-api-key headers carry different keys; send one key, or the same key in both.');
  }
  return token;
}

export default definePlugin({
  name: 'auth',
  provides: ['key'],
  setup({ store, clock }) {
    return {
      // From the headers alone: a caller without a valid key never gets a body buffered.
      async onHeaders(call) {
        const token = presentedKey(call);

        const digest = hashSecret(token);
        const match = await store.keys.findByValueHash(digest);
        const known = match !== undefined && digestsEqual(digest, match.valueHash);

        const imported = importablePrefixOf(token);
        if (imported) {
          throw refuse(
            `Keys starting with ${imported} belong to ${IMPORTABLE_PREFIXES[imported]} and do not authenticate here. ` +
              'Import it in the dashboard (/dashboard) to mirror its usage history, and call the API with an sl- key.',
          );
        }
        if (!NATIVE_KEY_PATTERN.test(token)) throw refuse('Malformed API key: expected sl- followed by 32 letters and digits.');
        if (!known) throw refuse('Invalid API key.');
        const now = clock.now();
        const { key } = match;
        if (key.status === 'revoked') throw refuse('This API key has been revoked.');
        if (match.validUntil !== null && now >= match.validUntil) {
          throw refuse(`This API key was rotated; its grace period ended at ${new Date(match.validUntil).toISOString()}. Use the new key.`);
        }
        if (key.expiresAt !== null && now >= key.expiresAt) {
          throw refuse(`This API key expired at ${new Date(key.expiresAt).toISOString()}.`);
        }
        call.authenticate(key);
      },
    };
  },
});
