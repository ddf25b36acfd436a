import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { cutForLog, MAX_LOGGED_CHARS } from '../http/redact.js';
import { hashSecret } from '../keys/key-material.js';
import type { AuditStore } from '../store/store.js';

const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** What the audit trail calls an admin: a short fingerprint of the token used, never the token. */
export const tokenFingerprint = (token: string): string => `token:${hashSecret(token).toString('hex').slice(0, 12)}`;

/** Longest action (method and path) stored: the request log's bound. */
export const MAX_ACTION_CHARS = MAX_LOGGED_CHARS;
const MAX_TARGET_CHARS = 64;

/** How long the trail keeps rows, and how many at most (the newest); pruned at most once a minute. */
export interface AuditRetention {
  maxAgeMs: number;
  maxRows: number;
}

export const AUDIT_RETENTION: AuditRetention = { maxAgeMs: 90 * 24 * 3600_000, maxRows: 100_000 };
const PRUNE_EVERY_MS = 60_000;

/** `METHOD path`, cut to MAX_ACTION_CHARS and marked when cut. */
export const auditAction = (method: string, path: string): string => cutForLog(`${method} ${path}`, MAX_ACTION_CHARS);

/**
 * How the token check wants a refused request recorded: with a note added to its action, or
 * not at all (attempts refused by a lockout, after the first: see requireAdmin).
 */
export type AuditNote = { note: string } | 'skip';
const NOTE = 'auditNote';

export function noteForAudit(res: Response, note: AuditNote): void {
  res.locals[NOTE] = note;
}

/**
 * Records every admin action (mutating requests) and every refused admin attempt: who (the
 * token's fingerprint, set by the auth check in res.locals.adminActor), what (method and
 * path, bounded), when, and the status it ended with. Runs before the token check so
 * refusals count. Keeps the table bounded by age and row count, pruning at most once a
 * minute, after a response and off its path.
 */
export function auditTrail(audit: AuditStore, clock: Clock, log: Logger, retention: AuditRetention = AUDIT_RETENTION): RequestHandler {
  let prunedAt = Number.NEGATIVE_INFINITY;
  const prune = (): void => {
    const now = clock.now();
    if (now - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now;
    setImmediate(() => {
      audit
        .prune(now - retention.maxAgeMs, retention.maxRows)
        .then((removed) => (removed > 0 ? log.info({ removed }, 'audit trail pruned') : undefined))
        .catch((error: unknown) => log.error({ err: error }, 'audit prune failed'));
    });
  };
  return (req, res, next) => {
    // Read now: sub-routers rewrite req.path as the request travels down.
    const path = req.path;
    res.once('finish', () => {
      const refused = res.statusCode === 401 || res.statusCode === 429;
      const note = res.locals[NOTE] as AuditNote | undefined;
      if ((!MUTATING.has(req.method) && !refused) || note === 'skip') return;
      const actor = (res.locals['adminActor'] as string | undefined) ?? 'unauthenticated';
      const target = /^\/(?:keys|imports|incidents)\/([^/]+)/.exec(path)?.[1]?.slice(0, MAX_TARGET_CHARS) ?? null;
      const action = auditAction(req.method, path) + (note ? ` ${note.note}` : '');
      audit
        .record({ at: clock.now(), actor, action, target, status: res.statusCode })
        .then(prune)
        .catch((error: unknown) => log.error({ err: error }, 'audit record failed'));
    });
    next();
  };
}
