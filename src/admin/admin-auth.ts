import type { RequestHandler } from 'express';
import { GatewayError } from '../http/errors.js';
import { sendError } from '../http/respond.js';
import { digestsEqual, hashSecret, NATIVE_PREFIX } from '../keys/key-material.js';

/**
 * Bearer admin token check. The token is compared as a SHA-256 digest in constant time; a
 * native `sl-` key is never an admin token, whatever the configuration says.
 */
export function requireAdmin(tokenHash: Buffer | null): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const match = /^bearer\s+(\S+)$/i.exec(header.trim());
    const token = match?.[1];
    if (!tokenHash || !token || token.startsWith(NATIVE_PREFIX) || !digestsEqual(hashSecret(token), tokenHash)) {
      sendError(res, new GatewayError(401, 'A valid admin token is required: Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.'));
      return;
    }
    next();
  };
}
