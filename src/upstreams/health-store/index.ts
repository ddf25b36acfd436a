/**
 * The shared health of upstream deployments backed by the store (docs/deployments.md): failures,
 * cooldowns and vendor rate headroom agreed by every instance on one store, and a per-process
 * view of the cooldowns for the selection to read synchronously.
 */
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/store.js';
import type { DeploymentHealthRow, DeploymentLimits, DeploymentRef, HealthPolicy, UpstreamHealth } from '../health.js';
import type { CooldownEvent, CooldownLog, HealthStore } from './health-store.js';
import { UPSTREAM_HEALTH_STATE } from './state.js';

/** What the health tells a logger: a pino Logger is one. */
export interface HealthLog {
  warn(fields: object, message: string): void;
  info(message: string): void;
}

export interface UpstreamHealthOptions {
  /** How often this process's view of the cooldowns is read from the store (250 ms). */
  refreshMs?: number;
  /** Where a store that cannot be read is told, once per outage, and its return (the gateway's logger). */
  log?: HealthLog;
}

const DEFAULT_REFRESH_MS = 250;
/** Cooldown events are kept, and listed, for a day. */
export const COOLDOWN_EVENTS_KEPT_MS = 24 * 3_600_000;
const PRUNE_EVERY_MS = 60_000;
const NONE: ReadonlyMap<string, number> = new Map();

/** `until` for the deployment in `view`, unless it has a later one there already (a cooldown only lengthens). */
function noteCooldown(view: Map<string, Map<string, number>>, { family, deployment }: DeploymentRef, until: number): void {
  let cooled = view.get(family);
  if (!cooled) view.set(family, (cooled = new Map<string, number>()));
  if ((cooled.get(deployment) ?? 0) < until) cooled.set(deployment, until);
}

/**
 * UpstreamHealth on the store. The view holds the deployments cooled down at the last refresh
 * (one query for every family: the rows whose cooldown runs past now) and those this process
 * cooled down since: at most one entry per configured deployment that failed, each dropped once
 * its cooldown has ended. A refresh that fails keeps the last view.
 */
export class StoreUpstreamHealth implements UpstreamHealth, CooldownLog {
  private view = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;
  private refreshing = false;
  /** A refresh is due as soon as the one in flight ends (`choosing`). */
  private readAgain = false;
  /** Whether a family has a choice of deployments: else no call reads the view, and a refresh only prunes. */
  private keepsView = true;
  private storeDown = false;
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: HealthStore,
    private readonly policy: HealthPolicy,
    private readonly clock: Clock,
    private readonly log: UpstreamHealthOptions['log'],
    refreshMs: number,
  ) {
    this.timer = setInterval(() => void this.refresh(), refreshMs);
    this.timer.unref();
  }

  choosing(any: boolean): void {
    const was = this.keepsView;
    this.keepsView = any;
    // A view not kept while no family had a choice is read at once (after a refresh in flight, which may have skipped it).
    if (any && !was) {
      this.readAgain = this.refreshing;
      void this.refresh();
    }
  }

  cooledDown(family: string, now: number): ReadonlyMap<string, number> {
    const cooled = this.view.get(family);
    if (!cooled) return NONE;
    for (const [deployment, until] of cooled) if (until <= now) cooled.delete(deployment);
    return cooled;
  }

  async recordFailure(ref: DeploymentRef, now: number, retryAfterMs: number | null): Promise<number | null> {
    const until = await this.store.fail(ref, this.policy, now, retryAfterMs === null ? null : Math.ceil(retryAfterMs));
    if (until !== null) noteCooldown(this.view, ref, until);
    return until;
  }

  take(ref: DeploymentRef, limits: DeploymentLimits, tokens: number, now: number): Promise<boolean> {
    // An estimate may come as a fraction; the store counts whole tokens.
    return this.store.take(ref, limits, Math.max(0, Math.ceil(tokens)), now);
  }

  async snapshot(now: number): Promise<DeploymentHealthRow[]> {
    const { health, minutes } = await this.store.rows(now);
    const rows = new Map<string, { -readonly [K in keyof DeploymentHealthRow]: DeploymentHealthRow[K] }>();
    const rowOf = ({ family, deployment }: DeploymentRef) => {
      const id = JSON.stringify([family, deployment]);
      let row = rows.get(id);
      if (!row) rows.set(id, (row = { family, deployment, recentFailures: 0, cooledUntil: null, minuteRequests: 0, minuteTokens: 0 }));
      return row;
    };
    for (const stored of health) {
      const row = rowOf(stored);
      row.recentFailures = stored.failures > 0 && stored.windowStart + this.policy.windowMs > now ? stored.failures : 0;
      row.cooledUntil = stored.cooledUntil > now ? stored.cooledUntil : null;
    }
    for (const minute of minutes) Object.assign(rowOf(minute), { minuteRequests: minute.requests, minuteTokens: minute.tokens });
    return [...rows.values()].sort((a, b) => a.family.localeCompare(b.family) || a.deployment.localeCompare(b.deployment));
  }

  /** The cooldowns started since `sinceMs`, newest first, at most `limit` (the store keeps a day of them). */
  events(sinceMs: number, limit: number): Promise<CooldownEvent[]> {
    return this.store.events(sinceMs, limit);
  }

  /**
   * Reads the cooldowns of every family from the store into the view (this process's own are
   * kept: the refresh may have read before they were written, and a cooldown only lengthens),
   * unless no family has a choice of deployments (`choosing`), and once a minute prunes what no
   * reader needs. Never runs twice at once; a store that cannot be read is told once and the last
   * view kept until it can.
   */
  async refresh(): Promise<void> {
    if (this.refreshing) return;
    const now = this.clock.now();
    const pruneDue = now - this.lastPrune >= PRUNE_EVERY_MS;
    if (!this.keepsView && !pruneDue) return;
    this.refreshing = true;
    try {
      if (this.keepsView) {
        const next = new Map<string, Map<string, number>>();
        for (const row of await this.store.cooled(now)) noteCooldown(next, row, row.cooledUntil);
        for (const [family, cooled] of this.view) for (const [deployment, until] of cooled) if (until > now) noteCooldown(next, { family, deployment }, until);
        this.view = next;
      }
      if (pruneDue) {
        this.lastPrune = now;
        await this.store.prune(now, this.policy.windowMs, now - COOLDOWN_EVENTS_KEPT_MS);
      }
      if (this.storeDown) this.log?.info('upstream health: the store answers again; cooldowns are read from it');
      this.storeDown = false;
    } catch (error) {
      if (!this.storeDown) this.log?.warn({ err: error }, 'upstream health: the store cannot be read; keeping the last view of cooldowns');
      this.storeDown = true;
    } finally {
      this.refreshing = false;
    }
    if (this.readAgain) {
      this.readAgain = false;
      await this.refresh();
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The store's upstream health with this process's view of it, read once before it answers. */
export async function openUpstreamHealth(store: Store, policy: HealthPolicy, clock: Clock, options: UpstreamHealthOptions = {}): Promise<StoreUpstreamHealth> {
  const health = new StoreUpstreamHealth(await store.extend(UPSTREAM_HEALTH_STATE), policy, clock, options.log, options.refreshMs ?? DEFAULT_REFRESH_MS);
  await health.refresh();
  return health;
}

/** The log of cooldowns alone, for a reader that changes nothing (the status plugin's operator view): the same sub-store the health writes. */
export const openCooldownLog = (store: Store): Promise<CooldownLog> => store.extend(UPSTREAM_HEALTH_STATE);
