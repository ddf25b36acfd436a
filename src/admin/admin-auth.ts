import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Clock } from '../clock.js';
import { clientAddress, type TrustedProxies } from '../http/client-address.js';
import { repeatedCredential } from '../http/credential-headers.js';
import { GatewayError } from '../http/errors.js';
import { sendError } from '../http/respond.js';
import { discardUnreadUpload } from '../http/unread-upload.js';
import { digestsEqual, hashSecret, NATIVE_PREFIX } from '../keys/key-material.js';
import type { FailureWindow, LockoutStore } from '../store/limits.js';
import { noteForAudit, tokenFingerprint } from './audit.js';

/** Failed admin-token attempts allowed per client address and window before 429. */
export const ADMIN_FAILURES_PER_WINDOW = 10;
const WINDOW_MS = 60_000;

/**
 * Counts failed attempts per client address in fixed one-minute windows (opened by a failure),
 * in the store: every instance sharing it counts into, and refuses from, the same window.
 */
export class FailedAttemptLimiter {
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: LockoutStore,
    private readonly clock: Clock,
  ) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  async retryAfter(address: string): Promise<number> {
    const now = this.clock.now();
    return this.wait(await this.store.current(address, now, WINDOW_MS), now);
  }

  /** True for the first attempt refused by this window's lockout only (whichever instance refused it). */
  firstRefusal(address: string): Promise<boolean> {
    return this.store.noteLockout(address, this.clock.now(), WINDOW_MS);
  }

  /** Counts a failed attempt; answers the seconds to wait when it was itself over the limit, else 0. */
  async fail(address: string): Promise<number> {
    const now = this.clock.now();
    const window = await this.store.fail(address, now, WINDOW_MS);
    if (now - this.prunedAt >= WINDOW_MS) {
      this.prunedAt = now;
      await this.store.prune(now - WINDOW_MS);
    }
    return window.failures > ADMIN_FAILURES_PER_WINDOW ? this.wait(window, now) : 0;
  }

  private wait(window: FailureWindow | undefined, now: number): number {
    if (!window || window.failures < ADMIN_FAILURES_PER_WINDOW) return 0;
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
  }
}

/**
 * Whether a request carries the bearer token whose SHA-256 is `tokenHash`, and which token it is;
 * else the 401 to answer: `wrong`, or the refusal of an Authorization header sent twice (the
 * check every authenticated surface makes: repeatedCredential). The token is compared as a
 * digest in constant time; a native `sl-` key never matches, whatever the configuration says.
 */
export function presentedBearer(req: IncomingMessage, tokenHash: Buffer | null, wrong: string): { token: string } | { refusal: GatewayError } {
  const repeated = repeatedCredential(req.rawHeaders, 'Authorization');
  if (repeated) return { refusal: repeated };
  const token = /^bearer\s+(\S+)$/i.exec((req.headers.authorization ?? '').trim())?.[1];
  if (tokenHash && token && !token.startsWith(NATIVE_PREFIX) && digestsEqual(hashSecret(token), tokenHash)) return { token };
  return { refusal: new GatewayError(401, wrong) };
}

/**
 * Bearer admin token check for /admin/v1. A client (its address as seen behind the trusted
 * proxies) that keeps presenting wrong tokens is refused with 429 for the rest of the minute,
 * on every instance. The audit trail records each wrong token (at most
 * ADMIN_FAILURES_PER_WINDOW per address and minute) and the first attempt the lockout refused,
 * noted as such; the lockout's further refusals are not written (nothing to learn from them,
 * and each would be a row a tokenless caller could add at will).
 */
export function requireAdmin(tokenHash: Buffer | null, limiter: FailedAttemptLimiter, trusted: TrustedProxies): RequestHandler {
  // A refused caller's upload is never read: discarded for a bounded time, like the API's 401.
  const refuse = (req: Request, res: Response, error: GatewayError): void => {
    discardUnreadUpload(req, res);
    sendError(res, error);
  };
  const lockedOut = async (req: Request, res: Response, address: string, wait: number): Promise<void> => {
    const note = `(locked out: ${address} presented ${ADMIN_FAILURES_PER_WINDOW} wrong tokens; its further attempts for ${wait} s are not recorded)`;
    noteForAudit(res, (await limiter.firstRefusal(address)) ? { note } : 'skip');
    refuse(req, res, new GatewayError(429, `Too many failed admin token attempts; try again in ${wait} s.`, { headers: { 'retry-after': String(wait) } }));
  };
  const check = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const address = clientAddress(req, trusted);
    const wait = await limiter.retryAfter(address);
    if (wait > 0) return lockedOut(req, res, address, wait);
    const presented = presentedBearer(req, tokenHash, 'A valid admin token is required: Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.');
    if ('refusal' in presented) {
      // Counted first: of attempts racing through several instances, the ones past the limit are refused as locked out.
      const over = await limiter.fail(address);
      if (over > 0) return lockedOut(req, res, address, over);
      refuse(req, res, presented.refusal);
      return;
    }
    res.locals['adminActor'] = tokenFingerprint(presented.token);
    next();
  };
  return (req, res, next) => {
    check(req, res, next).catch(next);
  };
}
