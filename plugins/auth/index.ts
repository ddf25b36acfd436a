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
 * `auth`: `sl-` keys, as a Bearer token, or as the header or query parameter the caller's format
 * takes (`x-api-key`, `x-goog-api-key`, `?key=`). Every presented token takes the same path —
 * hashed, looked up, compared in constant time — whatever its prefix; only then is the reason for
 * a refusal chosen. Every refusal is 401 invalid_api_key (docs/api-contract.md#keys).
 */

const refuse = (message: string): GatewayError => new GatewayError(401, message);

function foreignAuthHeader(headers: IncomingHttpHeaders, keyHeader: string | undefined): string | undefined {
  return Object.keys(headers).find((name) => name !== 'authorization' && name !== 'cookie' && name !== keyHeader && isCredentialHeader(name));
}

/** The key in the query parameter `name` (null: none given); given twice, refused like a repeated header. */
function queryKey(url: string | undefined, name: string): string | null {
  const query = url?.indexOf('?') ?? -1;
  if (query < 0) return null;
  const values = new URLSearchParams(url?.slice(query + 1)).getAll(name);
  if (values.length > 1) throw refuse(`Send exactly one ${name} query parameter.`);
  const value = values[0]?.trim();
  return value === undefined || value === '' ? null : value;
}

/** How a format's endpoints take the key, for a 401's message. */
function howToSend(endpoint: Call['endpoint']): string {
  const ways = [endpoint.keyHeader && `${endpoint.keyHeader}: sl-…`, endpoint.keyQuery && `?${endpoint.keyQuery}=sl-…`, 'Authorization: Bearer sl-…'];
  const given = ways.filter((way): way is string => typeof way === 'string');
  return given.length > 2 ? `${given.slice(0, -1).join(', ')} or ${given.at(-1)}` : given.join(' or ');
}

/**
 * The key the caller presented: `Authorization: Bearer`, or, on endpoints of a format whose
 * convention it is, its header (`Endpoint.keyHeader`) or query parameter (`Endpoint.keyQuery`).
 * Several at once must carry the same key: the gateway never picks one of two keys. A header sent
 * twice is refused for the same reason.
 */
function presentedKey(call: Call): string {
  const { keyHeader, keyQuery } = call.endpoint;
  const repeated = repeatedCredential(call.req.rawHeaders, 'Authorization') ?? (keyHeader ? repeatedCredential(call.req.rawHeaders, keyHeader) : undefined);
  if (repeated) throw repeated;
  const headerValue = keyHeader ? call.callerHeaders[keyHeader] : undefined;
  const fromHeader = typeof headerValue === 'string' && headerValue.trim() !== '' ? headerValue.trim() : null;
  const fromQuery = keyQuery ? queryKey(call.req.url, keyQuery) : null;
  if (fromHeader !== null && fromQuery !== null && fromHeader !== fromQuery)
    throw refuse(`The ${keyHeader} header and the ${keyQuery} query parameter carry different keys; send one key.`);
  const other = fromHeader ?? fromQuery;
  const header = call.callerHeaders.authorization;
  if (header === undefined || header.trim() === '') {
    if (other !== null) return other;
    const foreign = foreignAuthHeader(call.callerHeaders, keyHeader);
    const how = howToSend(call.endpoint);
    throw refuse(foreign ? `The ${foreign} header is not accepted; send the key as ${how}.` : `No API key: send ${how}.`);
  }
  const token = bearerToken(header);
  if (token === undefined) throw refuse('The Authorization header must use the Bearer scheme: Authorization: Bearer sl-….');
  if (other !== null && other !== token) {
    const otherName = fromHeader !== null ? `${keyHeader} header` : `${keyQuery} query parameter`;
    throw refuse(`The Authorization header and the ${otherName} carry different keys; send one key, or the same key in both.`);
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
