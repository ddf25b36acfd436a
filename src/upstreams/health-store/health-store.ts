/**
 * What the store keeps of upstream deployments' health (docs/deployments.md): failure windows and
 * cooldowns, requests and tokens per minute, and the log of cooldowns. Every write is atomic
 * across the instances sharing the store. The per-process view the selection reads is built on
 * it in ./index.ts.
 */
import type { DeploymentLimits, DeploymentRef, HealthPolicy } from '../health.js';

/** A cooldown started (or lengthened) by a deployment's failures: what the operator's view lists. */
export interface CooldownEvent extends DeploymentRef {
  /** Epoch ms of the failure that started it. */
  readonly startedAt: number;
  /** Epoch ms it ends. */
  readonly until: number;
  /** The failures within the window that started it (the policy's `fails`). */
  readonly failures: number;
  /** The vendor's Retry-After it honoured (ms), when that was longer than the policy's cooldown. */
  readonly retryAfterMs: number | null;
}

/** The log of cooldowns, newest first. */
export interface CooldownLog {
  /** Cooldowns started at or after `sinceMs`, newest first, at most `limit`. */
  events(sinceMs: number, limit: number): Promise<CooldownEvent[]>;
}

/** A deployment cooled down, and until when. */
export interface CooledRow extends DeploymentRef {
  readonly cooledUntil: number;
}

/** A deployment's failure window and cooldown as stored. */
export interface HealthRow extends DeploymentRef {
  readonly windowStart: number;
  readonly failures: number;
  readonly cooledUntil: number;
}

/** A deployment's requests and tokens in one minute. */
export interface MinuteRow extends DeploymentRef {
  readonly requests: number;
  readonly tokens: number;
}

export interface HealthStore extends CooldownLog {
  /**
   * Counts a failure at `now` into the deployment's window (a new window opens at a failure after
   * the last one closed); the `fails`-th cools the deployment down until the latest of its current
   * cooldown, `now + cooldownMs` and the latest Retry-After of the window, resets the count and
   * logs the cooldown. The cooldown's end, or null when this failure started none.
   */
  fail(ref: DeploymentRef, policy: HealthPolicy, now: number, retryAfterMs: number | null): Promise<number | null>;
  /** Every deployment cooled down at `now`. */
  cooled(now: number): Promise<CooledRow[]>;
  /** UpstreamHealth.take: one request and `tokens` from the minute of `now`, or nothing if either limit would be passed. */
  take(ref: DeploymentRef, limits: DeploymentLimits, tokens: number, now: number): Promise<boolean>;
  /** Every stored failure window and cooldown, and the minute rows of `now`'s minute. */
  rows(now: number): Promise<{ health: HealthRow[]; minutes: MinuteRow[] }>;
  /**
   * Deletes what no reader needs at `now`: minutes before the current one, windows closed
   * (`windowMs`) with no cooldown running, cooldown events that started before `eventsBefore`.
   */
  prune(now: number, windowMs: number, eventsBefore: number): Promise<void>;
}

export const MINUTE_MS = 60_000;
export const minuteOf = (now: number): number => Math.floor(now / MINUTE_MS);
