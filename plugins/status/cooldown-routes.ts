import type { Router } from 'express';
import type { Clock } from '../../src/plugin-api.js';
import { handled, sendJson } from '../../src/toolkit/routes.js';
import { COOLDOWN_EVENTS_KEPT_MS, type CooldownEvent, type CooldownLog } from '../../src/toolkit/upstream-health.js';

/** `GET /admin/v1/cooldowns`: the operator's view of the upstream deployments cooled down in the last 24 h, every instance's. */

/** The most a listing holds, newest first. */
export const COOLDOWNS_LISTED = 100;

const iso = (ms: number): string => new Date(ms).toISOString();

export interface CooldownJson {
  family: string;
  deployment: string;
  started_at: string;
  until: string;
  reason: 'failures' | 'retry_after';
  failures: number;
  retry_after_ms: number | null;
}

export const cooldownJson = (event: CooldownEvent): CooldownJson => ({
  family: event.family,
  deployment: event.deployment,
  started_at: iso(event.startedAt),
  until: iso(event.until),
  // What set its length: the vendor's Retry-After when longer than `cooldown_s`, else the failures.
  reason: event.retryAfterMs === null ? 'failures' : 'retry_after',
  failures: event.failures,
  retry_after_ms: event.retryAfterMs,
});

export function mountCooldownRoutes(router: Router, deps: { log: CooldownLog; clock: Clock }): void {
  router.get(
    '/cooldowns',
    handled(async (_req, res) => {
      const events = await deps.log.events(deps.clock.now() - COOLDOWN_EVENTS_KEPT_MS, COOLDOWNS_LISTED);
      sendJson(res, 200, JSON.stringify({ object: 'list', data: events.map(cooldownJson) }));
    }),
  );
}
