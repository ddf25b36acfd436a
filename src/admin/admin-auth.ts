import type { RequestHandler } from 'express';
import type { Clock } from '../clock.js';
import { GatewayError } from '../http/errors.js';
import { sendError } from '../http/respond.js';
import { digestsEqual, hashSecret, NATIVE_PREFIX } from '../keys/key-material.js';
import { noteForAudit, tokenFingerprint } from './audit.js';

/** Failed admin-token attempts allowed per client address and window before 429. */
export const ADMIN_FAILURES_PER_WINDOW = 10;
const WINDOW_MS = 60_000;

interface Window {
  start: number;
  failures: number;
  /** Whether the audit trail has recorded this window's lockout yet. */
  lockoutRecorded: boolean;
}

/** Counts failed attempts per address in fixed one-minute windows. */
export class FailedAttemptLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly clock: Clock) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  retryAfter(address: string): number {
    const window = this.current(address);
    if (!window || window.failures < ADMIN_FAILURES_PER_WINDOW) return 0;
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - this.clock.now()) / 1000));
  }

  /** True for the first attempt refused by this window's lockout only. */
  firstRefusal(address: string): boolean {
    const window = this.current(address);
    if (!window || window.lockoutRecorded) return false;
    window.lockoutRecorded = true;
    return true;
  }

  fail(address: string): void {
    const now = this.clock.now();
    const window = this.current(address) ?? { start: now, failures: 0, lockoutRecorded: false };
    window.failures += 1;
    this.windows.set(address, window);
    if (this.windows.size > 10_000) this.sweep(now);
  }

  private current(address: string): Window | undefined {
    const window = this.windows.get(address);
    if (window && this.clock.now() - window.start >= WINDOW_MS) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  private sweep(now: number): void {
    for (const [address, window] of this.windows) if (now - window.start >= WINDOW_MS) this.windows.delete(address);
  }
}

/**
 * Whether an Authorization header carries the bearer token whose SHA-256 is `tokenHash`, and
 * which token it is. The token is compared as a digest in constant time; a native `sl-` key
 * never matches, whatever the configuration says.
 */
function matchingBearer(header: string | undefined, tokenHash: Buffer | null): string | undefined {
  const match = /^bearer\s+(\S+)$/i.exec((header ?? '').trim());
  const token = match?.[1];
  return tokenHash && token && !token.startsWith(NATIVE_PREFIX) && digestsEqual(hashSecret(token), tokenHash) ? token : undefined;
}

export const bearerMatches = (header: string | undefined, tokenHash: Buffer | null): boolean => matchingBearer(header, tokenHash) !== undefined;

/**
 * Bearer admin token check for /admin/v1. An address that keeps presenting wrong tokens is
 * refused with 429 for the rest of the minute. The audit trail records each wrong token (at
 * most ADMIN_FAILURES_PER_WINDOW per address and minute) and the first attempt the lockout
 * refused, noted as such; the lockout's further refusals are not written (nothing to learn
 * from them, and each would be a row a tokenless caller could add at will).
 */
export function requireAdmin(tokenHash: Buffer | null, limiter: FailedAttemptLimiter): RequestHandler {
  return (req, res, next) => {
    const address = req.socket.remoteAddress ?? 'unknown';
    const wait = limiter.retryAfter(address);
    if (wait > 0) {
      const note = `(locked out: ${address} presented ${ADMIN_FAILURES_PER_WINDOW} wrong tokens; its further attempts for ${wait} s are not recorded)`;
      noteForAudit(res, limiter.firstRefusal(address) ? { note } : 'skip');
      sendError(res, new GatewayError(429, `Too many failed admin token attempts; try again in ${wait} s.`, { headers: { 'retry-after': String(wait) } }));
      return;
    }
    const token = matchingBearer(req.headers.authorization, tokenHash);
    if (!token) {
      limiter.fail(address);
      sendError(res, new GatewayError(401, 'A valid admin token is required: Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.'));
      return;
    }
    res.locals['adminActor'] = tokenFingerprint(token);
    next();
  };
}
