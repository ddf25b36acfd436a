import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { hashSecret } from '../keys/key-material.js';
import type { AuditStore } from '../store/store.js';

const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** What the audit trail calls an admin: a short fingerprint of the token used, never the token. */
export const tokenFingerprint = (token: string): string => `token:${hashSecret(token).toString('hex').slice(0, 12)}`;

/**
 * Records every admin action (mutating requests) and every refused admin attempt: who (the
 * token's fingerprint, set by the auth check in res.locals.adminActor), what (method and
 * path), when, and the status it ended with. Runs before the token check so refusals count.
 */
export function auditTrail(audit: AuditStore, clock: Clock, log: Logger): RequestHandler {
  return (req, res, next) => {
    // Read now: sub-routers rewrite req.path as the request travels down.
    const path = req.path;
    res.once('finish', () => {
      const refused = res.statusCode === 401 || res.statusCode === 429;
      if (!MUTATING.has(req.method) && !refused) return;
      const actor = (res.locals['adminActor'] as string | undefined) ?? 'unauthenticated';
      const target = /^\/(?:keys|imports|incidents)\/([^/]+)/.exec(path)?.[1] ?? null;
      audit
        .record({ at: clock.now(), actor, action: `${req.method} ${path}`, target, status: res.statusCode })
        .catch((error: unknown) => log.error({ err: error }, 'audit record failed'));
    });
    next();
  };
}
