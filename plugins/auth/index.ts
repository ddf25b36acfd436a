import type { IncomingHttpHeaders } from 'node:http';
import { definePlugin, digestsEqual, headerCount, GatewayError, hashSecret, IMPORTABLE_PREFIXES, importablePrefixOf, isCredentialHeader, NATIVE_KEY_PATTERN } from '../../src/plugin-api.js';

/**
 * `auth`: Bearer `sl-` keys. Every presented token takes the same path — hashed, looked up,
 * compared in constant time — whatever its prefix; only then is the reason for a refusal
 * chosen. Every refusal is 401 invalid_api_key (docs/api-contract.md#keys).
 */

const BEARER = /^bearer[ \t]+(.*)$/i;

const refuse = (message: string): GatewayError => new GatewayError(401, message);

function foreignAuthHeader(headers: IncomingHttpHeaders): string | undefined {
  return Object.keys(headers).find((name) => name !== 'authorization' && name !== 'cookie' && isCredentialHeader(name));
}

export default definePlugin({
  name: 'auth',
  setup({ store, clock }) {
    return {
      // From the headers alone: a caller without a valid key never gets a body buffered.
      async onHeaders(call) {
        if (headerCount(call.req.rawHeaders, 'authorization') > 1) throw refuse('Send exactly one Authorization header.');
        const header = call.callerHeaders.authorization;
        if (header === undefined || header.trim() === '') {
          const foreign = foreignAuthHeader(call.callerHeaders);
          throw refuse(
            foreign
              ? `The ${foreign} header is not accepted; send the key as Authorization: Bearer sl-….`
              : 'No API key: send Authorization: Bearer sl-….',
          );
        }
        const bearer = BEARER.exec(header.trim());
        if (!bearer) throw refuse('The Authorization header must use the Bearer scheme: Authorization: Bearer sl-….');
        const token = bearer[1] as string;

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
        if (!known || !match) throw refuse('Invalid API key.');
        const now = clock.now();
        const { key } = match;
        if (key.status === 'revoked') throw refuse('This API key has been revoked.');
        if (match.validUntil !== null && now >= match.validUntil) {
          throw refuse(`This API key was rotated; its grace period ended at ${new Date(match.validUntil).toISOString()}. Use the new key.`);
        }
        if (key.expiresAt !== null && now >= key.expiresAt) {
          throw refuse(`This API key expired at ${new Date(key.expiresAt).toISOString()}.`);
        }
        call.key = key;
      },
    };
  },
});
