import type { RequestHandler } from 'express';
import { GatewayError } from '../http/errors.js';
import { sendError } from '../http/respond.js';
import { digestsEqual, hashSecret, NATIVE_PREFIX } from '../keys/key-material.js';

/**
 * Whether an Authorization header carries the bearer token whose SHA-256 is `tokenHash`. The
 * token is compared as a digest in constant time; a native `sl-` key never matches, whatever
 * the configuration says.
 */
export function bearerMatches(header: string | undefined, tokenHash: Buffer | null): boolean {
  const match = /^bearer\s+(\S+)$/i.exec((header ?? '').trim());
  const token = match?.[1];
  return !!tokenHash && !!token && !token.startsWith(NATIVE_PREFIX) && digestsEqual(hashSecret(token), tokenHash);
}

/** Bearer admin token check for /admin/v1. */
export function requireAdmin(tokenHash: Buffer | null): RequestHandler {
  return (req, res, next) => {
    if (!bearerMatches(req.headers.authorization, tokenHash)) {
      sendError(res, new GatewayError(401, 'A valid admin token is required: Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.'));
      return;
    }
    next();
  };
}
